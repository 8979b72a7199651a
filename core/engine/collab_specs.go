package engine

// Descriptions and JSON schemas of the collaboration tools (seed 000).
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

const inputItemsSchema = `{"type":"array","description":"Structured input instead of message.","items":{"type":"object","properties":{"type":{"type":"string","enum":["text","image","local_image"]},"text":{"type":"string"},"image_url":{"type":"string"},"path":{"type":"string"}},"required":["type"],"additionalProperties":false}}`

const spawnSchema = `{"type":"object","properties":{
"message":{"type":"string","description":"The task for the new agent. Provide message or items, not both."},
"items":` + inputItemsSchema + `,
"agent_type":{"type":"string","description":"Role template (snake_case or kebab-case), e.g. worker, explorer, orchestrator. Omit for a default agent."},
"agent_name":{"type":"string","description":"Persona within the agent_type template."},
"working_directory":{"type":"string","description":"Directory the agent works in (default: yours). A different directory needs user approval."},
"model":{"type":"string","description":"Model override."},
"reasoning_effort":{"type":"string","description":"Reasoning effort override: minimal, low, medium, high or xhigh."},
"thread_note":{"type":"string","description":"Short note shown in the agent tree."}
},"additionalProperties":false}`

const sendInputSchema = `{"type":"object","properties":{
"id":{"type":"string","description":"agent_id of the target agent."},
"target":{"type":"string","description":"Alias of id."},
"message":{"type":"string"},
"items":` + inputItemsSchema + `,
"interrupt":{"type":"boolean","description":"Interrupt the agent's current work first."}
},"additionalProperties":false}`

const waitSchema = `{"type":"object","properties":{
"ids":{"type":"array","items":{"type":"string"},"minItems":1,"description":"agent_ids to wait on."},
"targets":{"type":"array","items":{"type":"string"},"minItems":1,"description":"Alias of ids."},
"timeout_ms":{"type":"integer","description":"Clamped to 10000..1800000; default 300000."}
},"additionalProperties":false}`

const idSchema = `{"type":"object","properties":{
"id":{"type":"string","description":"agent_id of the target agent."},
"target":{"type":"string","description":"Alias of id."}
},"additionalProperties":false}`

const listAgentsSchema = `{"type":"object","properties":{
"agent_type":{"type":"string","description":"Only this role."},
"expanded":{"type":"boolean","description":"Include model, reasoning_effort and prompts."}
},"additionalProperties":false}`

const listActiveSchema = `{"type":"object","properties":{
"scope":{"type":"string","enum":["children","descendants","all"],"description":"children (default), descendants or all."},
"include_tree":{"type":"boolean","description":"Add parent_thread_id and depth."},
"include_closed":{"type":"boolean","description":"Also list shutdown/not_found agents (default false)."}
},"additionalProperties":false}`

const setNoteSchema = `{"type":"object","properties":{
"id":{"type":"string","description":"agent_id (your own id to set your note)."},
"target":{"type":"string","description":"Alias of id."},
"note":{"type":"string","description":"The note; empty clears it."}
},"required":["note"],"additionalProperties":false}`
