package engine

// Descriptions of the collaboration tools (seed 000); their schemas are
// generated from the argument structs in collab.go and list_active.go.
const (
	spawnDesc      = `Start a sub-agent that works in parallel on a self-contained task and returns {agent_id, ...} immediately. Give it everything it needs in message (goal, files, constraints, what to report). Pick a role with agent_type (see list_agents; e.g. explorer for read-only investigation, worker for changes) and optionally a persona with agent_name. working_directory different from yours needs the user's approval. Use wait to collect its result and close_agent when done.`
	sendInputDesc  = `Send a follow-up message to a sub-agent. With interrupt=true its current work is interrupted first.`
	waitDesc       = `Wait until at least one of the given agents reaches a final status (completed, errored, shutdown, not_found). Returns {status: {id: final_status}, timed_out}. Returns as soon as one is final, including others that finished at the same moment. An agent interrupted by the user also ends the wait: its status is interrupted and said_so_far holds what it had said before the interruption (send_input gives it new work). timeout_ms is clamped to 10000..1800000 (default 300000); on timeout status is empty and timed_out is true.`
	resumeDesc     = `Reopen a closed agent from its saved history so it can take input again. No-op for an agent that is still open.`
	closeDesc      = `Close an agent and its whole subtree: running work is stopped and their status becomes shutdown. A sub-agent may close only itself and its own descendants.`
	listAgentsDesc = `List the agent roles (agent_type) available to spawn_agent, with descriptions, tool allow/deny lists and personas (agent_names). expanded=true adds model, reasoning_effort and prompts. Filter with agent_type.`
	listActiveDesc = `List spawned agents with their live status, note, model and how long they have been in their status. scope: children (default), descendants or all; include_tree adds parent_thread_id and depth; include_closed also lists shut-down agents.`
	setNoteDesc    = `Set the short note shown next to an agent in the agent tree (what it is doing). An empty note clears it. Notes are trimmed, whitespace-collapsed and cut to 500 characters.`
)
