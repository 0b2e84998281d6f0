// agentskills-cpp — harness: the state of one conversation (history, turn count) and the
// thread-safe JSON `shim_state` its shims share. Part of <agentskills/harness.hpp>.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages.hpp"

namespace agentskills {

/// A JSON object shared by the shims of one run, with atomic operations. Every member is
/// safe to call from several threads at once (tool handlers may run in parallel).
class ShimState {
public:
    ShimState() = default;
    explicit ShimState(nlohmann::json initial);
    ShimState(const ShimState& other);
    ShimState& operator=(const ShimState& other);
    ~ShimState() = default;

    /// The value under `key`, or null when absent.
    [[nodiscard]] nlohmann::json get(std::string_view key) const;
    [[nodiscard]] bool contains(std::string_view key) const;
    void set(std::string_view key, nlohmann::json value);
    /// Sets `key` only when it is absent; returns whether it did.
    bool set_if_absent(std::string_view key, nlohmann::json value);
    /// Appends `value` to the array under `key` (created when absent) unless it is already in
    /// it; returns whether it appended. A non-array value under `key` is replaced by an array.
    bool append_if_unique(std::string_view key, const nlohmann::json& value);
    /// Removes `value` from the array under `key`; returns whether it was there.
    bool remove_value(std::string_view key, const nlohmann::json& value);
    /// Removes `key`; returns whether it was there.
    bool erase(std::string_view key);
    /// Runs `fn` on the whole object under the lock (keep it short; do not call back in).
    void update(const std::function<void(nlohmann::json& object)>& fn);
    /// A copy of the whole object.
    [[nodiscard]] nlohmann::json snapshot() const;

private:
    mutable std::mutex mutex_;
    nlohmann::json data_ = nlohmann::json::object();
};

/// The state of one conversation with an agent: it persists across `DefaultAgent::run` calls
/// until `reset`. `instructions` is the system instruction (shims may append to it once).
/// The agent loop owns `history` and `turn_count`; shims use `shim_state`.
struct RunState {
    std::string instructions;
    std::vector<Message> history = {};
    std::size_t turn_count = 0;  ///< model turns completed in this conversation
    ShimState shim_state = {};
};

}  // namespace agentskills
