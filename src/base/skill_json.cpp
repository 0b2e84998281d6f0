// JSON form of the value types (used by the CLI and by hosts that log or ship manifests).
//
// Paths come from directory listings and may hold any bytes; every string put into JSON here
// passes through valid_utf8 (each ill-formed byte becomes U+FFFD), so that `dump()` never
// throws for one odd file name and a whole listing is not lost to it.
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "agentskills/base/diagnostics.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/skill.hpp"

namespace agentskills {
namespace {

nlohmann::json text(std::string_view s) { return nlohmann::json(valid_utf8(s)); }

nlohmann::json optional_text(const std::optional<std::string>& v) { return v ? text(*v) : nlohmann::json(nullptr); }

nlohmann::json text_list(const std::vector<std::string>& items) {
    auto out = nlohmann::json::array();
    for (const auto& item : items) out.push_back(text(item));
    return out;
}

}  // namespace

const nlohmann::json& SharedJson::empty_object() noexcept {
    static const nlohmann::json empty = nlohmann::json::object();
    return empty;
}

struct SharedJson::Deferred {
    std::string source;  // freed once the value is built
    nlohmann::json (*build)(std::string_view) = nullptr;
    std::once_flag once;
    nlohmann::json value;
};

SharedJson SharedJson::deferred(std::string source, nlohmann::json (*build)(std::string_view)) {
    SharedJson out;
    out.deferred_ = std::make_shared<Deferred>();
    out.deferred_->source = std::move(source);
    out.deferred_->build = build;
    return out;
}

const nlohmann::json& SharedJson::built() const noexcept {
    Deferred& d = *deferred_;
    std::call_once(d.once, [&d] {
        d.value = d.build(d.source);
        std::string().swap(d.source);
    });
    return d.value;
}

void to_json(nlohmann::json& j, const SkillManifest& m) {
    auto metadata = nlohmann::json::object();
    for (const auto& [k, v] : m.metadata) metadata[valid_utf8(k)] = text(v);
    j = nlohmann::json{
        {"name", text(m.name)},
        {"description", text(m.description)},
        {"license", optional_text(m.license)},
        {"compatibility", optional_text(m.compatibility)},
        {"allowed-tools", text_list(m.allowed_tools)},
        {"metadata", std::move(metadata)},
        {"tools", m.tools ? text_list(*m.tools) : nlohmann::json(nullptr)},
        {"disallowed-tools", text_list(m.disallowed_tools)},
        {"disable-model-invocation", m.disable_model_invocation},
        {"user-invocable", m.user_invocable},
        {"version", optional_text(m.version)},
        {"category", optional_text(m.category)},
        {"tags", text_list(m.tags)},
        {"aliases", text_list(m.aliases)},
        {"ignored-behavioral-fields", text_list(m.ignored_behavioral_fields)},
        {"location", text(m.skill_file)},
        {"root", text(m.root)},
        {"library", text(m.library)},
        {"frontmatter", m.frontmatter},
        {"mode", std::string(to_string(m.mode))},
    };
}

void to_json(nlohmann::json& j, const Diagnostic& d) {
    j = nlohmann::json{{"code", text(d.code)},
                       {"severity", std::string(to_string(d.severity))},
                       {"path", text(d.path)},
                       {"line", d.line},
                       {"message", text(d.message)}};
}

void to_json(nlohmann::json& j, const SkippedSkill& s) {
    j = nlohmann::json{
        {"path", text(s.path)}, {"reason", std::string(to_string(s.reason))}, {"message", text(s.message)}};
}

}  // namespace agentskills
