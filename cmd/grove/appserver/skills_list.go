package appserver

import (
	"os"

	"github.com/grovecli/grove/core/skills"
	"github.com/grovecli/grove/protocol"
)

// skills/list (Codex app-server v2): the skills for each requested
// working directory, with the files that could not be read.

type skillsListParams struct {
	Cwds        []string `json:"cwds"`
	ForceReload bool     `json:"forceReload"`
}

type skillMetadata struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`
	Scope       string `json:"scope"`
	Provenance  string `json:"provenance"`
	Enabled     bool   `json:"enabled"`
}

// provenance is Codex's name for where a skill came from.
var provenance = map[string]string{"repo": "project", "user": "personal", "system": "system"}

type skillErrorInfo struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

type skillsListEntry struct {
	Cwd    string           `json:"cwd"`
	Skills []skillMetadata  `json:"skills"`
	Errors []skillErrorInfo `json:"errors"`
}

type skillsListResponse struct {
	Data []skillsListEntry `json:"data"`
}

// skillsList answers skills/list; no cwds means the server's own.
// Discovery reads the disk each time, so forceReload changes nothing.
func (s *Server) skillsList(p skillsListParams) (any, *protocol.RPCError) {
	find := s.opts.Skills
	if find == nil { // only the repository's own skills
		find = func(cwd string) skills.Catalog { return skills.Discover(skills.Locations{Cwd: cwd}) }
	}
	if len(p.Cwds) == 0 {
		cwd := s.opts.Cwd
		if cwd == "" {
			cwd, _ = os.Getwd()
		}
		p.Cwds = []string{cwd}
	}
	resp := skillsListResponse{Data: []skillsListEntry{}}
	for _, cwd := range p.Cwds {
		resp.Data = append(resp.Data, skillsEntry(cwd, find(cwd)))
	}
	return resp, nil
}

func skillsEntry(cwd string, c skills.Catalog) skillsListEntry {
	e := skillsListEntry{Cwd: cwd, Skills: []skillMetadata{}, Errors: []skillErrorInfo{}}
	for _, sk := range c.Skills {
		e.Skills = append(e.Skills, skillMetadata{Name: sk.Name, Description: sk.Description, Path: sk.Path, Scope: sk.Scope, Provenance: provenance[sk.Scope], Enabled: true})
	}
	for _, p := range c.Problems {
		e.Errors = append(e.Errors, skillErrorInfo{Path: p.Path, Message: p.Message})
	}
	return e
}
