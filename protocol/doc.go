// Package protocol holds the plain data types shared by the engine, the TUI,
// the rollout recorder and the CLI: ids, agent statuses, conversation items,
// events, ops and approvals. It imports nothing from the rest of grove.
package protocol
