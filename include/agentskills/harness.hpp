// agentskills-cpp — a minimal, harness-neutral agent surface that shims plug into.
//
// An umbrella over the four parts of the harness layer, which knows nothing about skills:
//   harness/messages.hpp   messages, tools and tool calls (JSON in the OpenAI chat-completions shape)
//   harness/run_state.hpp  run state with a thread-safe JSON `shim_state`
//   harness/shim.hpp       the Shim / BoundShim extension points and runner hooks
//   harness/agent.hpp      the Model interface, ScriptedModel and DefaultAgent (the tool loop)
// A host that has its own agent loop can drive shims directly (docs/shim.md). What skills
// shims keep in a run state (the active skill names) is read through <agentskills/activation.hpp>.
#pragma once

#include "harness/agent.hpp"      // IWYU pragma: export
#include "harness/messages.hpp"   // IWYU pragma: export
#include "harness/run_state.hpp"  // IWYU pragma: export
#include "harness/shim.hpp"       // IWYU pragma: export
