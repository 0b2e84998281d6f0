// JSON form of the value types (used by the CLI and by hosts that log or ship manifests).
#include <nlohmann/json.hpp>

#include "agentskills/diagnostics.hpp"
#include "agentskills/skill.hpp"

namespace agentskills {

const nlohmann::json& SharedJson::empty_object() noexcept {
    static const nlohmann::json empty = nlohmann::json::object();
    return empty;
}

void to_json(nlohmann::json& j, const SkillManifest& m) {
    const auto optional = [](const std::optional<std::string>& v) {
        return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    auto metadata = nlohmann::json::object();
    for (const auto& [k, v] : m.metadata) metadata[k] = v;
    j = nlohmann::json{
        {"name", m.name},
        {"description", m.description},
        {"license", optional(m.license)},
        {"compatibility", optional(m.compatibility)},
        {"allowed-tools", m.allowed_tools},
        {"metadata", std::move(metadata)},
        {"tools", m.tools ? nlohmann::json(*m.tools) : nlohmann::json(nullptr)},
        {"disallowed-tools", m.disallowed_tools},
        {"disable-model-invocation", m.disable_model_invocation},
        {"user-invocable", m.user_invocable},
        {"version", optional(m.version)},
        {"category", optional(m.category)},
        {"tags", m.tags},
        {"aliases", m.aliases},
        {"ignored-behavioral-fields", m.ignored_behavioral_fields},
        {"location", m.skill_file},
        {"root", m.root},
        {"library", m.library},
        {"frontmatter", m.frontmatter},
    };
}

void to_json(nlohmann::json& j, const Diagnostic& d) {
    j = nlohmann::json{{"code", d.code},
                       {"severity", std::string(to_string(d.severity))},
                       {"path", d.path},
                       {"line", d.line},
                       {"message", d.message}};
}

void to_json(nlohmann::json& j, const SkippedSkill& s) {
    j = nlohmann::json{{"path", s.path}, {"reason", std::string(to_string(s.reason))}, {"message", s.message}};
}

}  // namespace agentskills
