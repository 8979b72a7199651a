package engine

import (
	"github.com/grovecli/grove/core/model"
	"github.com/grovecli/grove/core/tools"
)

// OfferedTools is the tool specs a root agent on modelName is sent (the
// registered tools its surface allows, shaped by the model's family and
// the tool config), as `grove debug tools --model M` prints them. Tools
// of MCP servers that have not started are not included.
func (e *Engine) OfferedTools(modelName string) (tools.Family, []model.ToolSpec, error) {
	surface, err := e.selectSurface(SurfaceQuery{Model: modelName})
	if err != nil {
		return "", nil, err
	}
	specs := e.tools.Specs(func(name string) bool { return e.surfaceAllows(surface, name) })
	set := tools.ToolSetFor(modelName, e.opts.ToolConfig)
	return set.Family, set.Offer(specs), nil
}
