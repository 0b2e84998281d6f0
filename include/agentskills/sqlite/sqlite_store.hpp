// agentskills-cpp — an activation store in an SQLite database file (optional component
// `agentskills::sqlite`, CMake option AGENTSKILLS_SQLITE; needs libsqlite3).
//
// Several threads and several *processes* may share one file: every claim is one
// `BEGIN IMMEDIATE` transaction, so of all callers exactly one gets `claimed`; waits for the
// file's lock are bounded by a busy timeout. See docs/shim.md, "Using the shim in your own agent
// loop".
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "../activation/activation.hpp"

namespace agentskills {

struct SqliteStoreOptions {
    /// Which conversation of the file this store reads and writes (one file may hold many).
    std::string conversation = "default";
    /// How long one statement waits for another connection's lock before it fails.
    std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(10000);
    /// An unconfirmed claim older than this is taken to belong to a caller that died, and may be
    /// claimed again.
    std::chrono::milliseconds stale_claim_after = std::chrono::milliseconds(600000);
};

/// Tables `agentskills_activations(conversation, name, state, seq, claimed_at_ms)` and
/// `agentskills_conversations(conversation, prompt_delivered)`, created when missing. Every
/// member is safe to call from several threads; failures of the database throw Error.
class SqliteActivationStore final : public ActivationStore {
public:
    /// Opens (creating it when missing) the database at `path`. Throws Error when it cannot.
    explicit SqliteActivationStore(const std::string& path, SqliteStoreOptions options = {});
    ~SqliteActivationStore() override;
    SqliteActivationStore(const SqliteActivationStore&) = delete;
    SqliteActivationStore& operator=(const SqliteActivationStore&) = delete;

    [[nodiscard]] ClaimResult claim(std::string_view name) override;
    void confirm(std::string_view name) override;
    void roll_back(std::string_view name) override;
    [[nodiscard]] std::vector<std::string> active_names() const override;
    [[nodiscard]] bool prompt_delivered() const override;
    bool mark_prompt_delivered() override;
    /// Polls the file every few milliseconds.
    void wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) override;
    /// Forgets this conversation's activations and delivery record.
    void reset();

    [[nodiscard]] const SqliteStoreOptions& options() const noexcept;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace agentskills
