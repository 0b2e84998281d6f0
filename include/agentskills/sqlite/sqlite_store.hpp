// agentskills-cpp — an activation store in an SQLite database file (optional component
// `agentskills::sqlite`, CMake option AGENTSKILLS_SQLITE; needs libsqlite3).
//
// Several threads and several *processes* may share one file: every claim is one
// `BEGIN IMMEDIATE` transaction, so of all callers exactly one gets `claimed`; waits for the
// file's lock are bounded by a busy timeout. A claim lasts as long as its holder: a process that
// dies holding one (even by SIGKILL) releases it, and the next caller claims it at once. See
// docs/shim.md, "Using the shim in your own agent loop", and docs/security.md, "The SQLite
// activation store".
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../activation/activation.hpp"
#include "../activation/session_store.hpp"

namespace agentskills {

struct SqliteStoreOptions {
    /// Which conversation of the file this store reads and writes (one file may hold many).
    std::string conversation = "default";
    /// How long one statement waits for another connection's lock before it fails, and how long
    /// wait_for_change waits, over one activation call, for a claim another caller holds before
    /// it throws an Error naming the skill, the conversation and the holder.
    std::chrono::milliseconds busy_timeout = std::chrono::milliseconds(10000);
    /// A claim written without a holder's lock (by an earlier version of this library, or where
    /// the system has no open-file-description locks) that is older than this is taken to belong
    /// to a caller that died, and may be claimed again. Claims with a lock are released when
    /// their holder dies, and are never taken from a live one.
    std::chrono::milliseconds stale_claim_after = std::chrono::milliseconds(600000);
};

/// Tables `agentskills_activations(conversation, name, state, seq, claimed_at_ms)`,
/// `agentskills_conversations(conversation, prompt_delivered)`, `agentskills_sessions` (of
/// SqliteSessionStore) and
/// `agentskills_claims(conversation, name, lock_offset, holder_pid, holder_host)`, created when
/// missing; a file that holds anything else (another table, an index, a trigger, a view) or a
/// table of another definition is refused. Each claim's holder keeps one byte of the side file
/// `<path>-claims` locked (fcntl F_OFD_SETLK). Every member is safe to call from several threads;
/// failures of the database throw Error.
class SqliteActivationStore final : public ActivationStore {
public:
    /// Opens (creating it when missing) the database at `path`, a regular file that is not a
    /// symbolic link (its directory is resolved; the file itself is never followed). Throws Error
    /// when it cannot, for a link, and for a file whose schema is not exactly the store's.
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
    /// Polls the file every few milliseconds. Throws Error naming the skill, the conversation and
    /// the claim's holder once one activation call (the calls with the same deadline) has waited
    /// `busy_timeout` for a live holder.
    void wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) override;
    /// Forgets this conversation's activations and delivery record.
    void reset();

    [[nodiscard]] const SqliteStoreOptions& options() const noexcept;

private:
    friend class SqliteSessionStore;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Sessions in the table `agentskills_sessions(id, version, client, last_seen_ms)` of a store
/// file, their activations in SqliteActivationStores of the same file (conversation
/// `session_conversation(id)`): the processes of one machine that share the file serve every
/// session. Idle expiry uses the system clock.
class SqliteSessionStore final : public SessionStore {
public:
    /// Opens (creating it when missing) the file at `path`, as SqliteActivationStore does.
    explicit SqliteSessionStore(const std::string& path, SqliteStoreOptions options = {});
    ~SqliteSessionStore() override;
    SqliteSessionStore(const SqliteSessionStore&) = delete;
    SqliteSessionStore& operator=(const SqliteSessionStore&) = delete;

    [[nodiscard]] SessionOpen open(std::string_view id, std::string_view version, std::string_view client,
                                   const SessionLimits& limits) override;
    [[nodiscard]] std::optional<std::string> touch(std::string_view id,
                                                   std::chrono::milliseconds idle_timeout) override;
    bool remove(std::string_view id) override;
    /// An SqliteActivationStore of its own for conversation `session_conversation(id)`.
    [[nodiscard]] ActivationStorePtr activations(std::string_view id) override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace agentskills
