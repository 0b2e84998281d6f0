#include "agentskills/harness/run_state.hpp"

#include <algorithm>
#include <utility>

#include "agentskills/base/errors.hpp"

namespace agentskills {

using nlohmann::json;

// ---------------------------------------------------------------------------------------
// ShimState.

ShimState::ShimState(json initial) {
    if (!initial.is_object()) throw ConfigurationError("shim state must be a JSON object");
    data_ = std::move(initial);
}

ShimState::ShimState(const ShimState& other) : data_(other.snapshot()) {}

ShimState& ShimState::operator=(const ShimState& other) {
    if (this != &other) {
        json copy = other.snapshot();
        std::lock_guard lock(mutex_);
        data_ = std::move(copy);
    }
    return *this;
}

json ShimState::get(std::string_view key) const {
    std::lock_guard lock(mutex_);
    auto it = data_.find(key);
    return it == data_.end() ? json(nullptr) : *it;
}

bool ShimState::contains(std::string_view key) const {
    std::lock_guard lock(mutex_);
    return data_.contains(key);
}

void ShimState::set(std::string_view key, json value) {
    std::lock_guard lock(mutex_);
    data_[std::string(key)] = std::move(value);
}

bool ShimState::set_if_absent(std::string_view key, json value) {
    std::lock_guard lock(mutex_);
    if (data_.contains(key)) return false;
    data_[std::string(key)] = std::move(value);
    return true;
}

bool ShimState::append_if_unique(std::string_view key, const json& value) {
    std::lock_guard lock(mutex_);
    json& slot = data_[std::string(key)];
    if (!slot.is_array()) slot = json::array();
    if (std::find(slot.begin(), slot.end(), value) != slot.end()) return false;
    slot.push_back(value);
    return true;
}

bool ShimState::remove_value(std::string_view key, const json& value) {
    std::lock_guard lock(mutex_);
    auto it = data_.find(key);
    if (it == data_.end() || !it->is_array()) return false;
    auto pos = std::find(it->begin(), it->end(), value);
    if (pos == it->end()) return false;
    it->erase(pos);
    return true;
}

bool ShimState::erase(std::string_view key) {
    std::lock_guard lock(mutex_);
    auto it = data_.find(key);
    if (it == data_.end()) return false;
    data_.erase(it);
    return true;
}

void ShimState::update(const std::function<void(json&)>& fn) {
    std::lock_guard lock(mutex_);
    fn(data_);
    if (!data_.is_object()) data_ = json::object();
}

json ShimState::snapshot() const {
    std::lock_guard lock(mutex_);
    return data_;
}

}  // namespace agentskills
