// The activation stores: in memory, over a run state's shim_state, and the run-state view.
#include "agentskills/activation/activation.hpp"

#include <algorithm>
#include <map>
#include <thread>
#include <utility>

#include <fmt/core.h>

#include "../base/model_output.hpp"
#include "agentskills/activation/prompt.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"
#include "texts.hpp"

namespace agentskills {

namespace texts = detail::texts;

// ---------------------------------------------------------------------------------------
// ActivationStore

ActivationStore::~ActivationStore() = default;

void ActivationStore::wait_for_change(std::string_view /*name*/, std::chrono::steady_clock::time_point deadline) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(std::chrono::milliseconds(5), deadline - now));
}

bool ActivationStore::is_active(std::string_view name) const {
    const std::vector<std::string> names = active_names();
    return std::find(names.begin(), names.end(), name) != names.end();
}

// ---------------------------------------------------------------------------------------
// MemoryActivationStore

namespace {
bool contains(const std::vector<std::string>& v, std::string_view s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

ClaimResult MemoryActivationStore::claim(std::string_view name) {
    std::lock_guard lock(mutex_);
    if (contains(active_, name)) return ClaimResult::already_active;
    if (contains(pending_, name)) return ClaimResult::in_progress;
    pending_.emplace_back(name);
    return ClaimResult::claimed;
}

void MemoryActivationStore::confirm(std::string_view name) {
    {
        std::lock_guard lock(mutex_);
        std::erase(pending_, name);
        if (!contains(active_, name)) active_.emplace_back(name);
    }
    changed_.notify_all();
}

void MemoryActivationStore::roll_back(std::string_view name) {
    {
        std::lock_guard lock(mutex_);
        std::erase(pending_, name);
    }
    changed_.notify_all();
}

std::vector<std::string> MemoryActivationStore::active_names() const {
    std::lock_guard lock(mutex_);
    return active_;
}

bool MemoryActivationStore::is_active(std::string_view name) const {
    std::lock_guard lock(mutex_);
    return contains(active_, name);
}

bool MemoryActivationStore::prompt_delivered() const {
    std::lock_guard lock(mutex_);
    return prompt_delivered_;
}

bool MemoryActivationStore::mark_prompt_delivered() {
    std::lock_guard lock(mutex_);
    return !std::exchange(prompt_delivered_, true);
}

void MemoryActivationStore::wait_for_change(std::string_view name, std::chrono::steady_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    changed_.wait_until(lock, deadline, [&] { return !contains(pending_, name); });
}

void MemoryActivationStore::clear() {
    {
        std::lock_guard lock(mutex_);
        active_.clear();
        pending_.clear();
        prompt_delivered_ = false;
    }
    changed_.notify_all();
}

// ---------------------------------------------------------------------------------------
// ShimStateActivationStore

namespace {

bool array_has(const nlohmann::json& object, const std::string& key, std::string_view name) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_array()) return false;
    return std::any_of(it->begin(), it->end(), [&](const nlohmann::json& v) {
        return v.is_string() && v.get_ref<const std::string&>() == name;
    });
}

void array_remove(nlohmann::json& object, const std::string& key, std::string_view name) {
    auto it = object.find(key);
    if (it == object.end() || !it->is_array()) return;
    for (auto pos = it->begin(); pos != it->end();) {
        if (pos->is_string() && pos->get_ref<const std::string&>() == name) {
            pos = it->erase(pos);
        } else {
            ++pos;
        }
    }
}

}  // namespace

std::shared_ptr<const ShimStateActivationStore::Keys> ShimStateActivationStore::keys_for(std::string_view shim_name) {
    return std::make_shared<const Keys>(Keys{
        .active = std::string(shim_name) + std::string(ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX),
        .prompt = std::string(shim_name) + ":system-prompt-appended",
        .pending = std::string(shim_name) + ":pending-skill-names",
    });
}

ShimStateActivationStore::ShimStateActivationStore(ShimState& state, std::string_view shim_name)
    : state_(&state), keys_(keys_for(shim_name)) {}

ShimStateActivationStore::ShimStateActivationStore(ShimState& state, std::shared_ptr<const Keys> keys)
    : state_(&state), keys_(std::move(keys)) {
    if (!keys_) throw ConfigurationError("ShimStateActivationStore: the keys are null");
}

// The update lambdas below capture one pointer, so that std::function holds them without
// allocating.

ClaimResult ShimStateActivationStore::claim(std::string_view name) {
    struct Call {
        const Keys* keys;
        std::string_view name;
        ClaimResult result = ClaimResult::claimed;
    } call{keys_.get(), name};
    state_->update([c = &call](nlohmann::json& o) {
        if (array_has(o, c->keys->active, c->name)) {
            c->result = ClaimResult::already_active;
        } else if (array_has(o, c->keys->pending, c->name)) {
            c->result = ClaimResult::in_progress;
        } else {
            nlohmann::json& pending = o[c->keys->pending];
            if (!pending.is_array()) pending = nlohmann::json::array();
            pending.push_back(std::string(c->name));
        }
    });
    return call.result;
}

namespace {

struct KeysAndName {
    const ShimStateActivationStore::Keys* keys;
    std::string_view name;
};

void remove_pending(nlohmann::json& o, const KeysAndName& c) {
    array_remove(o, c.keys->pending, c.name);
    if (auto it = o.find(c.keys->pending); it != o.end() && (!it->is_array() || it->empty())) o.erase(it);
}

}  // namespace

void ShimStateActivationStore::confirm(std::string_view name) {
    const KeysAndName call{keys_.get(), name};
    state_->update([c = &call](nlohmann::json& o) {
        auto* object = o.get_ptr<nlohmann::json::object_t*>();
        const auto pending = object == nullptr ? nlohmann::json::object_t::iterator() : object->find(c->keys->pending);
        const bool only_this_pending = object != nullptr && pending != object->end() && pending->second.is_array() &&
                                       pending->second.size() == 1 && pending->second[0].is_string() &&
                                       pending->second[0].get_ref<const std::string&>() == c->name;
        if (only_this_pending && object->find(c->keys->active) == object->end()) {
            // The usual first activation: the pending entry (["name"]) becomes the active one
            // in place, its node and strings reused; the state is what the general path gives.
            auto node = object->extract(pending);
            node.key() = c->keys->active;
            object->insert(std::move(node));
            return;
        }
        remove_pending(o, *c);
        if (!array_has(o, c->keys->active, c->name)) {
            nlohmann::json& active = o[c->keys->active];
            if (!active.is_array()) active = nlohmann::json::array();
            active.push_back(std::string(c->name));
        }
    });
}

void ShimStateActivationStore::roll_back(std::string_view name) {
    const KeysAndName call{keys_.get(), name};
    state_->update([c = &call](nlohmann::json& o) { remove_pending(o, *c); });
}

namespace {

std::vector<std::string> names_under(const ShimState& state, const std::string& key) {
    std::vector<std::string> out;
    const nlohmann::json value = state.get(key);
    if (!value.is_array()) return out;
    for (const auto& n : value) {
        if (n.is_string()) out.push_back(n.get<std::string>());
    }
    return out;
}

}  // namespace

std::vector<std::string> ShimStateActivationStore::active_names() const { return names_under(*state_, keys_->active); }

std::vector<std::string> ShimStateActivationStore::active_names(const ShimState& state, std::string_view shim_name) {
    return names_under(state, std::string(shim_name) + std::string(ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX));
}

bool ShimStateActivationStore::prompt_delivered() const { return state_->get(keys_->prompt) == true; }

bool ShimStateActivationStore::mark_prompt_delivered() {
    struct Call {
        const Keys* keys;
        bool marked = false;
    } call{keys_.get()};
    state_->update([c = &call](nlohmann::json& o) {
        auto it = o.find(c->keys->prompt);
        if (it != o.end() && *it == true) return;
        o[c->keys->prompt] = true;
        c->marked = true;
    });
    return call.marked;
}

// ---------------------------------------------------------------------------------------
// Active skills in a run state

std::vector<std::string> RunStateView::active_skill_names() const {
    const nlohmann::json all = state_->shim_state.snapshot();
    std::vector<std::string> out;
    for (const auto& [key, value] : all.items()) {
        if (key.size() < ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX.size() ||
            std::string_view(key).substr(key.size() - ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX.size()) !=
                ACTIVE_SKILL_NAMES_STATE_KEY_SUFFIX) {
            continue;
        }
        if (!value.is_array()) continue;
        for (const auto& name : value) {
            if (!name.is_string()) continue;
            auto s = name.get<std::string>();
            if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
        }
    }
    return out;
}

}  // namespace agentskills
