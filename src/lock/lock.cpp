// agentskills-cpp — lock files: digests of every file of a skill (OpenSSL EVP SHA-256), the
// versioned JSON form, and the verifier discovery's admission stage calls.
#include "agentskills/lock/lock.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "../base/json_text_check.hpp"
#include "../catalog/incomplete_listing.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "agentskills/catalog/loader.hpp"

namespace agentskills {

using nlohmann::json;

namespace {

/// SHA-256 as fetched from OpenSSL's providers, once per process: `EVP_sha256()` in
/// `EVP_DigestInit_ex` fetches the implementation again on every call (a property query under a
/// lock), which cost as much as hashing a small file.
const EVP_MD* sha256_md() {
    static const std::unique_ptr<EVP_MD, decltype(&EVP_MD_free)> md(EVP_MD_fetch(nullptr, "SHA256", nullptr),
                                                                    &EVP_MD_free);
    return md.get();
}

}  // namespace

std::string sha256_digest(std::string_view bytes) {
    const EVP_MD* md_type = sha256_md();
    std::array<unsigned char, EVP_MAX_MD_SIZE> md{};
    unsigned int length = 0;
    if (md_type == nullptr || EVP_Digest(bytes.data(), bytes.size(), md.data(), &length, md_type, nullptr) != 1) {
        throw IoError("SHA-256 failed (OpenSSL)");
    }
    constexpr std::string_view hex = "0123456789abcdef";
    std::string out = "sha256:";
    out.reserve(7 + 2 * std::size_t{length});
    for (unsigned int i = 0; i < length; ++i) {
        out.push_back(hex[md[i] >> 4]);
        out.push_back(hex[md[i] & 0x0F]);
    }
    return out;
}

namespace {

bool is_digest(std::string_view d) {
    constexpr std::string_view prefix = "sha256:";
    if (d.size() != prefix.size() + 64 || d.substr(0, prefix.size()) != prefix) return false;
    return std::all_of(d.begin() + prefix.size(), d.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

bool is_plain_relative(const std::string& p) {
    try {
        return normalize_relative_path(p) == p && p != ".";
    } catch (const Error&) {
        return false;
    }
}

// Every file below `skill_dir`, sorted by path: SKILL.md and the library's one resource walk with
// hidden names (links to directories are not followed).
std::vector<std::string> skill_files(const SkillReader& reader, const std::string& skill_dir) {
    ResourceList listed = list_skill_resources(
        reader, skill_dir,
        {.max_resources = SKILL_LOCK_MAX_FILES - 1, .include_hidden = true, .include_symlinks = true});
    if (listed.omitted > 0) {
        throw IoError(fmt::format("{} holds more than {} files", skill_dir, SKILL_LOCK_MAX_FILES));
    }
    if (listed.incomplete) {
        throw IoError(detail::incomplete_listing_message(listed, skill_dir, SKILL_MAX_RESOURCE_DEPTH));
    }
    std::vector<std::string> paths;
    paths.reserve(listed.resources.size() + 1);
    for (auto& r : listed.resources) paths.push_back(std::move(r.path));
    try {
        const FileStat st = reader.stat(join_path(skill_dir, "SKILL.md"));
        if (st.kind == EntryKind::file) paths.emplace_back("SKILL.md");
    } catch (const NotFoundError&) {
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

// Reads and digests one file; `total` counts the bytes of the skill read so far.
std::string digest_file(const SkillReader& reader, const std::string& path, std::size_t& total) {
    ReadResult r = reader.read_file(path, SKILL_LOCK_MAX_FILE_BYTES);
    if (r.truncated) {
        throw IoError(fmt::format("{} is larger than the lock limit of {} bytes", path, SKILL_LOCK_MAX_FILE_BYTES));
    }
    total += r.data.size();
    if (total > SKILL_LOCK_MAX_SKILL_BYTES) {
        throw IoError(fmt::format("the files of the skill reach past the lock limit of {} bytes at {}",
                                  SKILL_LOCK_MAX_SKILL_BYTES, path));
    }
    return sha256_digest(r.data);
}

// The lock's reading through the shared JSON reader (base/json_text_check.hpp): at most 8 levels
// (the format needs four), each key at most once per object.
constexpr std::size_t lock_max_depth = 8;

json read_lock_text(std::string_view text) {
    detail::JsonTextCheck check({.max_depth = lock_max_depth});
    using Fault = detail::JsonTextCheck::Fault;
    json doc;
    switch (check.parse(text, doc)) {
        case Fault::none:
        case Fault::values:  // no value limit is set
            return doc;
        case Fault::depth:
            throw ConfigurationError("lock file: nested deeper than the format allows");
        case Fault::syntax:
            throw ConfigurationError(fmt::format("lock file: invalid JSON: {}", valid_utf8(check.syntax_error())));
        case Fault::duplicate_key:
            break;
    }
    // "skill N: " inside the N-th entry of the top-level "skills" list, as the other errors say.
    const auto& where = check.where();
    std::string skill;
    if (where.size() >= 2 && where[0].object && where[0].key == "skills" && !where[1].object) {
        skill = fmt::format("skill {}: ", where[1].element + 1);
    }
    throw ConfigurationError(fmt::format("lock file: {}duplicate key '{}' {}", skill, check.key(),
                                         where.empty() ? "in the top-level object" : "at " + check.pointer()));
}

}  // namespace

std::vector<LockedFile> digest_skill_files(const SkillReader& reader, std::string_view skill_dir) {
    std::vector<std::string> paths = skill_files(reader, std::string(skill_dir));
    std::vector<LockedFile> out;
    out.reserve(paths.size());
    std::size_t total = 0;
    for (auto& p : paths) {
        std::string digest = digest_file(reader, join_path(skill_dir, p), total);
        out.push_back(LockedFile{std::move(p), std::move(digest)});
    }
    return out;
}

SkillLock make_skill_lock(const std::vector<SkillManifest>& skills, const SkillReader& reader) {
    SkillLock lock;
    lock.skills.reserve(skills.size());
    for (const auto& m : skills)
        lock.skills.push_back(LockedSkill{m.name, m.library, digest_skill_files(reader, m.root)});
    return lock;
}

namespace {

// The lock of `skills`, each through the reader the loader names for it; a skill that fails
// goes to `left_out` when there is one, else its error ends the lock.
SkillLock lock_through(const std::vector<SkillManifest>& skills, const SkillLoader& loader,
                       std::vector<SkippedSkill>* left_out) {
    const LocalSkillReader local;
    SkillLock lock;
    lock.skills.reserve(skills.size());
    for (const auto& m : skills) {
        const SkillReaderPtr reader = loader.reader_for(m.name);
        try {
            lock.skills.push_back(LockedSkill{m.name, m.library, digest_skill_files(reader ? *reader : local, m.root)});
        } catch (const Error& e) {
            if (left_out == nullptr) throw;
            left_out->push_back(
                SkippedSkill{m.skill_file, SkipReason::unreadable,
                             fmt::format("{}: the files of {} cannot be locked: {}", m.skill_file, m.name, e.what())});
        }
    }
    return lock;
}

}  // namespace

SkillLock make_skill_lock(const std::vector<SkillManifest>& skills, const SkillLoader& loader) {
    return lock_through(skills, loader, nullptr);
}

SkillLock make_skill_lock(const std::vector<SkillManifest>& skills, const SkillLoader& loader,
                          std::vector<SkippedSkill>& left_out) {
    return lock_through(skills, loader, &left_out);
}

std::string to_lock_text(const SkillLock& lock) {
    json skills = json::array();
    for (const auto& s : lock.skills) {
        json files = json::object();
        for (const auto& f : s.files) files[valid_utf8(f.path)] = f.digest;
        skills.push_back(
            json{{"name", valid_utf8(s.name)}, {"source", valid_utf8(s.source)}, {"files", std::move(files)}});
    }
    json doc{{"version", SKILL_LOCK_VERSION}, {"skills", std::move(skills)}};
    return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

// The npm `skills` CLI's lock (skills 1.7.4, `skills-lock.json`): {"version": N, "skills":
// {NAME: {"source", "sourceType", "computedHash", ...}}}. Its computedHash is one SHA-256 over
// every file's relative path and bytes run together without separators, in the order of
// JavaScript's localeCompare: two different trees can give one hash and the order depends on
// the locale, so this library does not verify it; it names the format instead.
bool is_skills_cli_lock(const json& doc) {
    if (!doc.is_object() || !doc.contains("skills") || !doc["skills"].is_object()) return false;
    if (!doc.contains("version") || !doc["version"].is_number()) return false;
    for (const auto& [name, entry] : doc["skills"].items()) {
        if (!entry.is_object() || !entry.contains("computedHash") || !entry["computedHash"].is_string()) return false;
    }
    return true;
}

constexpr std::string_view skills_cli_refusal =
    "lock file: this is the npm 'skills' CLI's lock file (skills-lock.json: a 'skills' map with a "
    "'computedHash' per skill), not an agentskills lock; its hashes are not verified here. Write an "
    "agentskills lock with 'agentskills lock --output agentskills-lock.json'";

}  // namespace

LockFormat lock_format(std::string_view text) noexcept {
    try {
        const json doc = json::parse(text, nullptr, false);
        if (doc.is_discarded() || !doc.is_object()) return LockFormat::other;
        if (is_skills_cli_lock(doc)) return LockFormat::skills_cli;
        if (doc.contains("skills") && doc["skills"].is_array() && doc.contains("version")) {
            return LockFormat::agentskills;
        }
    } catch (...) {  // allocation failure: not a format this function can tell
    }
    return LockFormat::other;
}

SkillLock parse_skill_lock(std::string_view text) {
    if (text.size() > SKILL_LOCK_MAX_BYTES) {
        throw ConfigurationError(fmt::format("lock file: the text is {} bytes, more than the limit of {}", text.size(),
                                             SKILL_LOCK_MAX_BYTES));
    }
    const json doc = read_lock_text(text);  // throws ConfigurationError for what it refuses
    if (!doc.is_object()) throw ConfigurationError("lock file: the document must be a JSON object");
    if (is_skills_cli_lock(doc)) throw ConfigurationError(std::string(skills_cli_refusal));
    for (const auto& [key, value] : doc.items()) {
        if (key != "version" && key != "skills") {
            throw ConfigurationError(fmt::format("lock file: unknown key '{}' (accepted: version, skills)", key));
        }
    }
    if (!doc.contains("version") || !doc["version"].is_number_integer() ||
        doc["version"].get<std::int64_t>() != SKILL_LOCK_VERSION) {
        throw ConfigurationError(fmt::format("lock file: 'version' must be {} (the format this library reads), not {}",
                                             SKILL_LOCK_VERSION,
                                             doc.contains("version") ? doc["version"].dump() : std::string("absent")));
    }
    if (!doc.contains("skills") || !doc["skills"].is_array()) {
        throw ConfigurationError("lock file: 'skills' must be a list");
    }
    const json& list = doc["skills"];
    if (list.size() > SKILL_LOCK_MAX_SKILLS) {
        throw ConfigurationError(fmt::format("lock file: more than {} skills", SKILL_LOCK_MAX_SKILLS));
    }
    SkillLock lock;
    std::unordered_map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const json& s = list[i];
        const std::string where = fmt::format("lock file: skill {}", i + 1);
        if (!s.is_object()) throw ConfigurationError(fmt::format("{}: must be an object", where));
        for (const auto& [key, value] : s.items()) {
            if (key != "name" && key != "source" && key != "files") {
                throw ConfigurationError(
                    fmt::format("{}: unknown key '{}' (accepted: name, source, files)", where, key));
            }
        }
        if (!s.contains("name") || !s["name"].is_string() || s["name"].get<std::string>().empty()) {
            throw ConfigurationError(fmt::format("{}: 'name' must be a non-empty string", where));
        }
        if (!s.contains("source") || !s["source"].is_string()) {
            throw ConfigurationError(fmt::format("{}: 'source' must be a string", where));
        }
        if (!s.contains("files") || !s["files"].is_object()) {
            throw ConfigurationError(fmt::format("{}: 'files' must be an object of path: digest", where));
        }
        LockedSkill skill{s["name"].get<std::string>(), s["source"].get<std::string>(), {}};
        if (!seen.emplace(nfkc(skill.name), i).second) {
            throw ConfigurationError(fmt::format("{}: the name '{}' is locked twice", where, skill.name));
        }
        if (s["files"].size() > SKILL_LOCK_MAX_FILES) {
            throw ConfigurationError(fmt::format("{}: more than {} files", where, SKILL_LOCK_MAX_FILES));
        }
        for (const auto& [path, digest] : s["files"].items()) {
            if (!is_plain_relative(path)) {
                throw ConfigurationError(fmt::format("{}: '{}' is not a relative path below the skill", where, path));
            }
            if (!digest.is_string() || !is_digest(digest.get<std::string>())) {
                throw ConfigurationError(
                    fmt::format("{}: the digest of '{}' must be sha256: and 64 lowercase hex digits", where, path));
            }
            skill.files.push_back(LockedFile{path, digest.get<std::string>()});
        }
        std::sort(skill.files.begin(), skill.files.end(),
                  [](const LockedFile& a, const LockedFile& b) { return a.path < b.path; });
        lock.skills.push_back(std::move(skill));
    }
    return lock;
}

SkillLock load_skill_lock(const std::string& path) {
    static const LocalSkillReader reader;
    const std::string shown = valid_utf8(path);
    ReadResult read;
    try {
        read = reader.read_file(path, SKILL_LOCK_MAX_BYTES);
    } catch (const Error& e) {
        throw ConfigurationError(fmt::format("lock file: {}", valid_utf8(e.what())));
    }
    if (read.truncated) {
        throw ConfigurationError(
            fmt::format("lock file '{}': the file is larger than the limit of {} bytes", shown, SKILL_LOCK_MAX_BYTES));
    }
    try {
        return parse_skill_lock(read.data);
    } catch (const ConfigurationError& e) {
        std::string_view message = e.what();
        constexpr std::string_view prefix = "lock file: ";
        if (message.substr(0, prefix.size()) == prefix) message.remove_prefix(prefix.size());
        throw ConfigurationError(fmt::format("lock file '{}': {}", shown, message));
    }
}

LockVerifier make_lock_verifier(SkillLock lock) {
    auto shared = std::make_shared<const SkillLock>(std::move(lock));
    auto index = std::make_shared<std::unordered_map<std::string, std::size_t>>();
    for (std::size_t i = 0; i < shared->skills.size(); ++i) index->emplace(nfkc(shared->skills[i].name), i);
    return [shared, index](const SkillManifest& m, const SkillReader& reader) -> LockCheck {
        auto it = index->find(nfkc(m.name));
        if (it == index->end()) return LockCheck{LockStatus::not_locked, {}, {}};
        const std::vector<LockedFile>& want = shared->skills[it->second].files;
        const std::vector<std::string> have = skill_files(reader, m.root);
        auto mismatch = [&](const std::string& rel, std::string_view what) {
            std::string file = join_path(m.root, rel);
            std::string message = fmt::format("{}: skill '{}' differs from the lock file: {} {}", m.skill_file,
                                              valid_utf8(m.name), valid_utf8(file), what);
            return LockCheck{LockStatus::mismatch, std::move(file), std::move(message)};
        };
        // The file sets first (no reading), then the digests in path order.
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < want.size() || j < have.size()) {
            if (j == have.size() || (i < want.size() && want[i].path < have[j])) {
                return mismatch(want[i].path, "is missing");
            }
            if (i == want.size() || have[j] < want[i].path) return mismatch(have[j], "is not in the lock");
            ++i;
            ++j;
        }
        std::size_t total = 0;
        for (const LockedFile& f : want) {
            if (digest_file(reader, join_path(m.root, f.path), total) != f.digest) return mismatch(f.path, "changed");
        }
        return LockCheck{LockStatus::verified, {}, {}};
    };
}

}  // namespace agentskills
