// agentskills-cpp — discovery, admission: what the merge kept goes through the override
// rules, the trust of its root and the lock, in that order (docs/loading.md, "Admission").
#include "admit.hpp"

#include <fnmatch.h>

#include <exception>
#include <string>
#include <utility>

#include <fmt/core.h>

#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/base/text.hpp"

namespace agentskills {

bool parse_skill_mode(std::string_view word, SkillMode& out) noexcept {
    for (SkillMode m : {SkillMode::on, SkillMode::name_only, SkillMode::user_invocable_only, SkillMode::off}) {
        if (word == to_string(m)) {
            out = m;
            return true;
        }
    }
    return false;
}

bool override_matches(const OverrideRule& rule, std::string_view name, std::string_view relative_dir) {
    if (!rule.name.empty()) return names_equal(rule.name, name);
    if (rule.path.empty()) return false;
    // fnmatch needs NUL-terminated strings; a NUL inside either never matches.
    const std::string pattern(rule.path);
    const std::string subject(relative_dir);
    if (pattern.find('\0') != std::string::npos || subject.find('\0') != std::string::npos) return false;
    return ::fnmatch(pattern.c_str(), subject.c_str(), FNM_PATHNAME) == 0;
}

SkillMode override_mode(const std::vector<OverrideRule>& rules, std::string_view name, std::string_view relative_dir) {
    SkillMode mode = SkillMode::on;
    for (const OverrideRule& r : rules) {
        if (override_matches(r, name, relative_dir)) mode = r.mode;
    }
    return mode;
}

namespace detail {

std::string relative_skill_dir(const SkillManifest& m) {
    const std::string_view root = m.root;
    const std::string_view lib = m.library;
    if (lib.empty() || lib == ".") {
        if (!root.empty() && root.front() != '/') return std::string(root);
    } else if (root.size() > lib.size() && root.substr(0, lib.size()) == lib &&
               (lib.back() == '/' || root[lib.size()] == '/')) {
        std::string_view rest = root.substr(lib.size());
        while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
        return std::string(rest);
    }
    // A skill directory reached through a link to outside its library: the group part of the
    // name, then the final component of the resolved directory.
    std::string out;
    const std::string_view name = m.name;
    if (const std::size_t colon = name.rfind(SKILL_GROUP_SEPARATOR); colon != std::string_view::npos) {
        for (char ch : name.substr(0, colon)) out += ch == SKILL_GROUP_SEPARATOR ? '/' : ch;
        out += '/';
    }
    out += path_basename(root);
    return out;
}

namespace {

class Admission {
public:
    Admission(Discovery& out, const AdmissionSettings& settings) : out_(out), settings_(settings) {}

    Admitted run() {
        std::vector<SkillManifest> kept;
        kept.reserve(out_.skills.size());
        for (SkillManifest& m : out_.skills) {
            if (admit_one(m)) {
                if (m.mode != SkillMode::on) admitted_.modes.emplace(nfkc(m.name), m.mode);
                kept.push_back(std::move(m));
            } else {
                admitted_.refused.insert(nfkc(m.name));
            }
        }
        out_.skills = std::move(kept);
        return std::move(admitted_);
    }

private:
    void refuse(const SkillManifest& m, SkipReason reason, std::string_view code, Severity severity,
                std::string message) {
        out_.diagnostics.push_back(Diagnostic{std::string(code), severity, m.skill_file, 0, message});
        out_.skipped.push_back(SkippedSkill{m.skill_file, reason, std::move(message)});
    }

    bool admit_one(SkillManifest& m) {
        // 1. Overrides.
        m.mode = override_mode(*settings_.overrides, m.name, relative_skill_dir(m));
        if (m.mode == SkillMode::off) {
            refuse(m, SkipReason::disabled, codes::skill_disabled, Severity::info,
                   fmt::format("{}: skill '{}' is turned off by an override rule", m.skill_file, model_text(m.name)));
            return false;
        }
        // 2. Trust.
        bool lock_required = false;
        if (settings_.untrusted_libraries->count(m.library) != 0) {
            const TrustCallback& trust = *settings_.trust;
            TrustDecision decision = TrustDecision::deny;
            std::string failure;
            if (trust) {
                try {
                    decision = trust(m);
                } catch (const std::exception& e) {
                    decision = TrustDecision::deny;
                    failure = fmt::format(" (the trust callback failed: {})", model_text(e.what()));
                }
            }
            if (decision == TrustDecision::deny) {
                refuse(
                    m, SkipReason::untrusted, codes::skill_untrusted, Severity::warning,
                    fmt::format("{}: skill '{}' comes from the untrusted root {} and was not allowed{}", m.skill_file,
                                model_text(m.name), m.library, trust ? failure : std::string(" (no trust callback)")));
                return false;
            }
            lock_required = decision == TrustDecision::lock;
        }
        // 3. Lock.
        const LockVerifier& lock = *settings_.lock;
        if (!lock) {
            if (!lock_required) return true;
            refuse(m, SkipReason::untrusted, codes::skill_untrusted, Severity::warning,
                   fmt::format("{}: skill '{}' comes from the untrusted root {}; the trust callback asked for the "
                               "lock file, but none is given",
                               m.skill_file, model_text(m.name), m.library));
            return false;
        }
        LockCheck check;
        try {
            check = lock(m, *settings_.reader);
        } catch (const std::exception& e) {
            check.status = LockStatus::mismatch;
            check.file = m.skill_file;
            check.message = fmt::format("{}: skill '{}' could not be checked against the lock file: {}", m.skill_file,
                                        model_text(m.name), model_text(e.what()));
        }
        switch (check.status) {
            case LockStatus::verified:
                return true;
            case LockStatus::mismatch:
                refuse(m, SkipReason::digest_mismatch, codes::digest_mismatch, Severity::error,
                       check.message.empty() ? fmt::format("{}: skill '{}' differs from the lock file ({})",
                                                           m.skill_file, model_text(m.name), check.file)
                                             : std::move(check.message));
                return false;
            case LockStatus::not_locked:
                if (!settings_.lock_strict && !lock_required) return true;
                refuse(m, SkipReason::not_locked, codes::not_locked, Severity::warning,
                       fmt::format("{}: skill '{}' is not in the lock file{}", m.skill_file, model_text(m.name),
                                   lock_required ? " (its root is untrusted and the trust callback asked for the lock)"
                                                 : " (strict locking)"));
                return false;
        }
        return true;
    }

    Discovery& out_;
    const AdmissionSettings& settings_;
    Admitted admitted_;
};

}  // namespace

Admitted admit(Discovery& out, const AdmissionSettings& settings) {
    if (!settings.active()) return {};
    return Admission(out, settings).run();
}

}  // namespace detail
}  // namespace agentskills
