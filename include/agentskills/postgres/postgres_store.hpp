// agentskills-cpp — an activation store in a PostgreSQL table (optional component
// `agentskills::postgres`, CMake option AGENTSKILLS_POSTGRES; needs libpq).
//
// Any number of threads, processes and machines may share one table: a claim is one
// `INSERT ... ON CONFLICT DO NOTHING`, made while its holder keeps a session-level advisory lock
// for it, so of all callers exactly one gets `claimed`. A claim lasts as long as its holder's
// connection: when the holder dies (even by SIGKILL) the server closes the connection and drops
// the lock, and the next caller takes the claim over at once. See docs/shim.md, "Using the shim
// in your own agent loop", and docs/security.md, "The PostgreSQL activation store".
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

struct PostgresStoreOptions {
    /// Which conversation of the table this store reads and writes (one table holds many).
    std::string conversation = "default";
    /// How long connecting may take (libpq's connect_timeout, in whole seconds, at least 2; a
    /// `connect_timeout` in the connection string wins).
    std::chrono::milliseconds connect_timeout = std::chrono::milliseconds(10000);
    /// How often wait_for_change looks at a claim another caller holds.
    std::chrono::milliseconds poll_interval = std::chrono::milliseconds(20);
};

/// The table `agentskills_activations(conversation text, name text, state text, seq bigint)`,
/// primary key (conversation, name), state one of 'pending', 'active' and 'prompt' (the row of
/// name '' that records the prompt's delivery), found through the connection's search_path and
/// created when missing; a relation of that name of any other shape (other columns, types,
/// constraints, a trigger, a view) is refused. Each unconfirmed claim's holder keeps a
/// session-level advisory lock (pg_try_advisory_lock on a 64-bit hash of conversation and name).
///
/// One connection per store, used under a mutex: every member is safe to call from several
/// threads (they take turns); give each thread its own store for calls that run at the same
/// time. Failures of the connection or the server throw Error, with the connection string's
/// password masked. Names are never empty (claim, confirm and roll_back throw Error for "").
class PostgresActivationStore final : public ActivationStore {
public:
    /// Connects with `connection` (a libpq URI, `postgresql://...`, or `key=value` pairs) and
    /// checks or creates the table. Throws Error when it cannot.
    explicit PostgresActivationStore(const std::string& connection, PostgresStoreOptions options = {});
    /// Closes the connection: the claims this store still holds are released (the next caller
    /// takes them over).
    ~PostgresActivationStore() override;
    PostgresActivationStore(const PostgresActivationStore&) = delete;
    PostgresActivationStore& operator=(const PostgresActivationStore&) = delete;

    [[nodiscard]] ClaimResult claim(std::string_view name) override;
    void confirm(std::string_view name) override;
    void roll_back(std::string_view name) override;
    [[nodiscard]] std::vector<std::string> active_names() const override;
    [[nodiscard]] bool prompt_delivered() const override;
    bool mark_prompt_delivered() override;
    /// Sleeps `poll_interval` (or until `deadline`); the caller then claims again, which takes
    /// over a claim whose holder is gone.
    void wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) override;
    /// Forgets this conversation's activations and delivery record.
    void reset();

    [[nodiscard]] const PostgresStoreOptions& options() const noexcept;
    /// The connection string with its password masked (what the messages name).
    [[nodiscard]] const std::string& display_connection() const noexcept;

    /// Whether `state` names a PostgreSQL connection (starts with `postgresql://` or `postgres://`).
    [[nodiscard]] static bool is_connection_uri(std::string_view state) noexcept;
    /// `connection` with any password masked as `***` (URI userinfo, `password=` parameters).
    [[nodiscard]] static std::string mask_password(std::string_view connection);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// Sessions in the table `agentskills_sessions(id text PRIMARY KEY, version text, client text,
/// last_seen timestamptz)` (created when missing), their activations in PostgresActivationStores
/// of the same database (conversation `session_conversation(id)`): every replica of a server
/// given the same connection serves every session. Idle expiry uses the server's clock. One
/// connection, used under a mutex; each activations() store has one of its own.
class PostgresSessionStore final : public SessionStore {
public:
    /// Connects with `connection` (as PostgresActivationStore) and creates the tables when
    /// missing. Throws Error when it cannot.
    explicit PostgresSessionStore(const std::string& connection, PostgresStoreOptions options = {});
    ~PostgresSessionStore() override;
    PostgresSessionStore(const PostgresSessionStore&) = delete;
    PostgresSessionStore& operator=(const PostgresSessionStore&) = delete;

    [[nodiscard]] SessionOpen open(std::string_view id, std::string_view version, std::string_view client,
                                   const SessionLimits& limits) override;
    [[nodiscard]] std::optional<std::string> touch(std::string_view id,
                                                   std::chrono::milliseconds idle_timeout) override;
    bool remove(std::string_view id) override;
    /// A PostgresActivationStore of its own (one connection) for conversation `session_conversation(id)`.
    [[nodiscard]] ActivationStorePtr activations(std::string_view id) override;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace agentskills
