// agentskills-cpp — a conformance kit for activation stores: the checks every ActivationStore
// passes (the memory, run-state, SQLite and PostgreSQL stores of this library run the same ones
// in its tests). Framework-neutral: call check_activation_store from any test framework and
// report the failures it returns. See docs/shim.md, "Writing a store of your own".
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "../activation/activation.hpp"

namespace agentskills::testing {

/// How the kit reaches the store under test.
struct StoreConformanceOptions {
    /// Opens a handle to the conversation `conversation`. The kit passes a new, unique id for
    /// every conversation it uses (`<prefix><n>`), and calls `open` again with the same id when it
    /// needs a second handle to the same conversation (from another thread, as another process
    /// would): both handles must then see the same claims, activations and delivery record. A
    /// store that lives in one object per conversation (MemoryActivationStore) returns the same
    /// object for the same id. Required.
    std::function<ActivationStorePtr(const std::string& conversation)> open;
    /// Prefix of the conversation ids (make it unique per run when the store keeps data between
    /// runs, such as a database server).
    std::string conversation_prefix = "conformance-";
    /// How many threads race for one claim (each on its own handle).
    std::size_t threads = 8;
    /// How long a wait for another handle's change may take before it counts as a failure.
    std::chrono::milliseconds patience = std::chrono::milliseconds(5000);
};

/// One failed check: which check, and what it found.
struct StoreConformanceFailure {
    std::string check;
    std::string message;
};

/// Runs every check of the kit against the store `options.open` makes: claim, confirm and
/// roll_back sequences; activation order; exact name comparison; is_active; one conversation
/// never seeing another's; a second handle seeing the first's claims; exactly one `claimed`
/// among `threads` simultaneous callers; the prompt's delivery recorded once (also among
/// threads); wait_for_change returning by its deadline and seeing another handle's change.
/// Returns the failures (empty: the store conforms). An exception from the store is reported as a
/// failure of the check that was running; the checks after it still run.
[[nodiscard]] std::vector<StoreConformanceFailure> check_activation_store(const StoreConformanceOptions& options);

/// The failures as text, one line each (`check: message`); empty for none.
[[nodiscard]] std::string describe(const std::vector<StoreConformanceFailure>& failures);

}  // namespace agentskills::testing
