// agentskills-cpp — discovery, stage 1: list the roots and keep their child directories.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <typeinfo>
#include <vector>

#include <fmt/core.h>

#include "../prefault.hpp"
#include "agentskills/base/diagnostic_codes.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/names.hpp"
#include "common.hpp"

namespace agentskills::detail {

namespace {

/// The first eight bytes of `name` as a number that orders as the bytes do (zero-padded: a name
/// that is a prefix of another comes first, as in string_view's order).
std::uint64_t name_key(std::string_view name) noexcept {
    unsigned char bytes[8] = {};
    std::memcpy(bytes, name.data(), std::min<std::size_t>(name.size(), 8));
    std::uint64_t key = 0;
    for (const unsigned char b : bytes) key = (key << 8) | b;
    return key;
}

/// `entries` in byte order of their names. A large library's listing holds thousands of entries,
/// and each string comparison is a call to memcmp: most pairs differ in their first eight bytes,
/// so those are compared as one number and only ties compare the names.
void sort_by_name(std::vector<RootEntry>& entries) {
    if (entries.size() < 64) {
        std::sort(entries.begin(), entries.end(),
                  [](const RootEntry& a, const RootEntry& b) { return a.name < b.name; });
        return;
    }
    struct Keyed {
        std::uint64_t key;
        RootEntry entry;
    };
    std::vector<Keyed> keyed;
    keyed.reserve(entries.size());
    for (const RootEntry& e : entries) keyed.push_back({name_key(e.name), e});
    std::sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
        if (a.key != b.key) return a.key < b.key;
        return a.entry.name < b.entry.name;
    });
    for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = keyed[i].entry;
}

class RootLister {
public:
    RootLister(const Storage& storage, const Selection& selection, MissingDirectories policy, RootListing& out)
        : storage_(storage), selection_(selection), policy_(policy), out_(out) {}

    void list(const Root& root, std::size_t index);

private:
    void note(std::string_view code, Severity severity, std::string path, std::string message) {
        out_.diagnostics.push_back(Diagnostic{std::string(code), severity, std::move(path), 0, std::move(message)});
    }
    // A root that is a file or a skill: skipped, or a DiscoveryError under `error` (explicit roots).
    void fail_or_skip(const Root& root, SkipReason reason, std::string_view code, std::string message) {
        if (policy_ == MissingDirectories::error && !root.is_default) throw DiscoveryError(message);
        note(code, Severity::warning, root.path, message);
        out_.skipped.push_back(SkippedSkill{root.path, reason, std::move(message)});
    }
    // A root that exists but cannot be inspected or listed: an explicit one fails discovery (the
    // loader cannot tell what it would miss); a default one is skipped, so that one unreadable
    // `./.agents/skills` does not cost the user's own skills. Call it from a catch block.
    void unreadable(const Root& root, const std::exception& e, std::string message) {
        if (!root.is_default) {
            if (dynamic_cast<const Error*>(&e) != nullptr) throw DiscoveryError(message);
            throw;  // what the reader threw, unchanged
        }
        note(codes::root_unreadable, Severity::warning, root.path, message);
        out_.skipped.push_back(SkippedSkill{root.path, SkipReason::unreadable, std::move(message)});
    }
    void keep_child_directories(const Root& root, Listed& l);

    const Storage& storage_;
    const Selection& selection_;
    MissingDirectories policy_;
    RootListing& out_;
    std::vector<std::string> seen_libraries_;
};

void RootLister::list(const Root& root, std::size_t index) {
    if (!root.failure.empty()) {  // a source root that could not be opened
        if (!root.failure_missing || (policy_ == MissingDirectories::error && !root.is_default)) {
            throw DiscoveryError(root.failure);
        }
        note(codes::root_missing, Severity::info, root.path, root.failure);
        return;
    }
    FileStat st;
    try {
        st = storage_.reader().stat(root.path);
    } catch (const NotFoundError&) {
        std::string message = fmt::format("library root {} does not exist", root.path);
        if (policy_ == MissingDirectories::error && !root.is_default) throw DiscoveryError(message);
        note(codes::root_missing, Severity::info, root.path, std::move(message));
        return;
    } catch (const std::exception& e) {
        unreadable(root, e, fmt::format("cannot inspect library root {}: {}", root.path, e.what()));
        return;
    }
    if (st.is_symlink && st.kind == EntryKind::other && !st.special_target) {
        // A dangling link, a loop, or a target that may not be looked at: a root that cannot be
        // inspected (as a child that is such a link is), not a file. An explicit one fails.
        std::string message = unfollowable_link_message(root.path, false);
        if (!root.is_default) throw DiscoveryError(message);
        note(codes::root_unreadable, Severity::warning, root.path, message);
        out_.skipped.push_back(SkippedSkill{root.path, SkipReason::unreadable, std::move(message)});
        return;
    }
    if (st.kind != EntryKind::directory) {
        fail_or_skip(root, SkipReason::not_a_directory, codes::root_not_a_directory,
                     fmt::format("library root {} is not a directory", root.path));
        return;
    }
    // The same library reached twice (a symlinked root) is scanned once. Two plugins may share
    // one folder (each naming its own skills in it, or under its own name): each is scanned.
    std::string key = storage_.library_key(root.path);
    if (!root.name_prefix.empty() || !root.only.empty()) {
        key.append(1, '\0').append(root.name_prefix);
        for (const std::string& name : root.only) key.append(1, '\0').append(name);
    }
    if (std::find(seen_libraries_.begin(), seen_libraries_.end(), key) != seen_libraries_.end()) return;
    seen_libraries_.push_back(std::move(key));

    Listed& l = out_.listed.emplace_back();
    l.root_index = index;
    try {
        storage_.list_root(root.path, l);
    } catch (const std::exception& e) {
        out_.listed.pop_back();
        unreadable(root, e, fmt::format("cannot list library root {}: {}", root.path, e.what()));
        return;
    }
    const bool is_package = std::any_of(l.children.begin(), l.children.end(), [](const RootEntry& e) {
        return e.name == skill_file_name && e.kind == EntryKind::file;
    });
    if (is_package) {
        out_.listed.pop_back();
        fail_or_skip(
            root, SkipReason::skill_package, codes::root_is_skill_package,
            fmt::format("library root {} holds a SKILL.md itself: it is a skill, not a library of skills", root.path));
        return;
    }
    keep_child_directories(root, l);
}

// Keeps the child directories (in place, in name order); says why an entry is refused.
void RootLister::keep_child_directories(const Root& root, Listed& l) {
    sort_by_name(l.children);
    std::size_t n_children = 0;
    for (const RootEntry& e : l.children) {
        if (!root.only.empty() && !std::binary_search(root.only.begin(), root.only.end(), e.name)) {
            continue;  // a plugin's folder of which it declares some skills: another child
        }
        if (!is_plain_entry_name(e.name)) {
            // Only a broken reader lists such a name; following it could leave the root.
            note(codes::entry_name_refused, Severity::warning, join_path(root.path, e.name),
                 fmt::format(
                     "library root {} lists an entry named '{}', which is not one path component; it was ignored",
                     root.path, e.name));
            continue;
        }
        if (e.kind == EntryKind::other && e.is_symlink) {
            // A dangling link, a link loop, a target we may not look at, or a link to a FIFO,
            // device or socket: it may have been a skill, so say so rather than pass over it.
            if (!selection_.selected(nfkc(e.name))) continue;
            std::string path = join_path(root.path, e.name);
            std::string message = unfollowable_link_message(path, e.special_target);
            note(codes::skill_unreadable, Severity::warning, path, message);
            out_.skipped.push_back(SkippedSkill{std::move(path), SkipReason::unreadable, std::move(message)});
            continue;
        }
        if (e.kind == EntryKind::other && !e.is_symlink && storage_.accepts_child(e.name)) {
            // Named like an archive a source opens (demo.skill), but a FIFO, socket or device: never
            // opened (it could block), and said, since it may have been meant as a skill.
            if (!selection_.selected(nfkc(source_child_name(e.name)))) continue;
            std::string path = join_path(root.path, e.name);
            std::string message =
                fmt::format("{} is not a regular file (a FIFO, socket or device); it was not opened", path);
            note(codes::skill_unreadable, Severity::warning, path, message);
            out_.skipped.push_back(SkippedSkill{std::move(path), SkipReason::unreadable, std::move(message)});
            continue;
        }
        if (e.kind == EntryKind::directory || (e.kind == EntryKind::file && storage_.accepts_child(e.name))) {
            l.children[n_children++] = e;  // a directory, or a file a source opens (an archive)
        }
    }
    l.children.resize(n_children);
}

}  // namespace

void list_roots(const std::vector<Root>& roots, const Storage& storage, const Selection& selection,
                MissingDirectories policy, RootListing& out) {
    RootLister lister(storage, selection, policy, out);
    for (std::size_t i = 0; i < roots.size(); ++i) lister.list(roots[i], i);
}

std::vector<Candidate> make_candidates(const std::vector<Root>& roots, const RootListing& listing) {
    std::size_t count = 0;
    for (const Listed& l : listing.listed) count += l.children.size();
    std::vector<Candidate> out;
    reserve_prefaulted(out, count);
    for (const Listed& l : listing.listed) {
        const Root& root = roots[l.root_index];
        for (const RootEntry& e : l.children) {
            Candidate c;
            c.root_index = l.root_index;
            c.library = root.path;
            c.child_dir = join_path(root.path, e.name);
            c.dir_name = std::string(e.name);
            c.is_symlink = e.is_symlink;
            c.source_child = e.kind == EntryKind::file;
            if (c.source_child) c.dir_name = source_child_name(e.name);
            out.push_back(std::move(c));
        }
    }
    return out;
}

}  // namespace agentskills::detail
