package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/grovecli/grove/core/model"
)

// StandardEfforts are the reasoning efforts accepted when a model does not
// list its own.
var StandardEfforts = []string{"minimal", "low", "medium", "high", "xhigh"}

// modelCatalog validates spawn-time model and effort overrides against the
// provider's model list (the client caches it).
type modelCatalog struct {
	client model.Client
}

// validate checks a model name and reasoning effort before a spawn. An
// empty name skips the model check.
func (m *modelCatalog) validate(ctx context.Context, name, effort string, checkModel bool) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var info *model.ModelInfo
	if checkModel || effort != "" {
		list, err := m.client.Models(ctx)
		switch {
		case errors.Is(err, model.ErrModelsUnsupported):
			list = nil
		case err != nil:
			if checkModel {
				return ModelsUpdatingError{}
			}
			list = nil
		}
		if list != nil {
			ids := make([]string, 0, len(list))
			for i := range list {
				ids = append(ids, list[i].ID)
				if list[i].ID == name {
					info = &list[i]
				}
			}
			if checkModel && info == nil {
				slices.Sort(ids)
				return fmt.Errorf("unknown model %q; available models: %s", name, strings.Join(ids, ", "))
			}
		}
	}
	if effort != "" {
		supported := StandardEfforts
		if info != nil && len(info.ReasoningEfforts) > 0 {
			supported = info.ReasoningEfforts
		}
		if !slices.Contains(supported, effort) {
			return fmt.Errorf("unsupported reasoning_effort %q for model %s; supported: %s", effort, name, strings.Join(supported, ", "))
		}
	}
	return nil
}
