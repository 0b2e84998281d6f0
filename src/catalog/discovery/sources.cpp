// agentskills-cpp — discovery's sources: library children that are files a ChildOpener turns
// into a skill (archives), and roots a RootResolver serves from a reader of its own (git trees).
//
// A source is mounted under a prefix: the child file's path, or the root's label. Its paths are
// `<prefix>!` (its root) and `<prefix>!/<inner>`, so that every stage of discovery, load() and
// the resource tools keep using plain path strings; SourceRouter is the SkillReader that sends
// such a path to the source's reader and every other path to the configured reader.
#include <atomic>
#include <chrono>
#include <map>
#include <shared_mutex>
#include <string>
#include <unordered_set>

#include <fmt/core.h>

#include "agentskills/base/errors.hpp"
#include "common.hpp"

namespace agentskills::detail {

class SourceRouter final : public SkillReader {
public:
    struct Mount {
        SkillReaderPtr reader;
        std::string inner;             // children: the skill directory inside `reader`
        std::uint64_t generation = 0;  // mixed into every identity: a reopened child is new
        FileStat file_stat;            // children: the file's stat when it was opened
        bool stat_trusted = false;     // children: whether that stat vouches for the bytes
    };
    using MountPtr = std::shared_ptr<const Mount>;

    SourceRouter(SkillReaderPtr base, SkillSources sources) : base_(std::move(base)), sources_(std::move(sources)) {
        for (const ChildOpener& o : sources_.child_openers) {
            if (!o.accepts || !o.open) throw ConfigurationError("a ChildOpener needs both `accepts` and `open`");
        }
        for (const RootResolver& r : sources_.root_resolvers) {
            if (!r) throw ConfigurationError("a RootResolver is empty");
        }
    }

    [[nodiscard]] const SkillSources& sources() const noexcept { return sources_; }

    // The mount a path belongs to and the position of its '!', or nullptr.
    [[nodiscard]] MountPtr find(std::string_view path, std::size_t& bang) const {
        if (path.find('!') == std::string_view::npos) return nullptr;
        std::shared_lock lock(mutex_);
        for (std::size_t p = path.find('!'); p != std::string_view::npos; p = path.find('!', p + 1)) {
            if (p + 1 != path.size() && path[p + 1] != '/') continue;
            const std::string_view prefix = path.substr(0, p);
            auto it = roots_.find(prefix);
            if (it == roots_.end()) {
                it = children_.find(prefix);
                if (it == children_.end()) continue;
            }
            bang = p;
            return it->second;
        }
        return nullptr;
    }

    ReadResult read_file(std::string_view path, std::size_t max_bytes) const override {
        std::string inner;
        if (MountPtr m = route(path, inner)) return m->reader->read_file(inner, max_bytes);
        return base_->read_file(path, max_bytes);
    }
    std::vector<DirEntry> list_dir(std::string_view path) const override {
        std::string inner;
        if (MountPtr m = route(path, inner)) return m->reader->list_dir(inner);
        return base_->list_dir(path);
    }
    std::vector<DirEntry> list_dir_kinds(std::string_view path) const override {
        std::string inner;
        if (MountPtr m = route(path, inner)) return m->reader->list_dir_kinds(inner);
        return base_->list_dir_kinds(path);
    }
    FileStat stat(std::string_view path) const override {
        std::string inner;
        if (MountPtr m = route(path, inner)) {
            FileStat st = m->reader->stat(inner);
            mix_generation(st, *m);
            return st;
        }
        return base_->stat(path);
    }
    // The confined read goes to the reader that holds the directory (for the base, the local
    // file system's openat2), not to SkillReader's default walk of stat calls through this router.
    ReadResult read_file_beneath(std::string_view dir, std::string_view relative,
                                 std::size_t max_bytes) const override {
        std::string inner;
        if (MountPtr m = route(dir, inner)) {
            ReadResult r = m->reader->read_file_beneath(inner, relative, max_bytes);
            mix_generation(r.stat, *m);
            return r;
        }
        return base_->read_file_beneath(dir, relative, max_bytes);
    }
    std::unique_ptr<const BeneathDirectory> open_beneath(std::string_view dir) const override {
        std::string inner;
        if (route(dir, inner)) return SkillReader::open_beneath(dir);  // each read through this router
        return base_->open_beneath(dir);
    }

    void add_root(const std::string& label, SkillReaderPtr reader) {
        std::unique_lock lock(mutex_);
        if (roots_.count(label) != 0) return;  // the same label: the same content
        auto m = std::make_shared<Mount>();
        m->reader = std::move(reader);
        m->generation = ++generation_;
        roots_.emplace(label, std::move(m));
    }

    MountPtr open_child(const std::string& path) {
        const ChildOpener* opener = nullptr;
        for (const ChildOpener& o : sources_.child_openers) {
            if (o.accepts(path_basename(path))) {
                opener = &o;
                break;
            }
        }
        if (opener == nullptr) throw IoError(fmt::format("{}: no source opens this file", path));
        // The stat is taken before the bytes are read: a change after it shows on the next stat.
        const FileStat st = base_->stat(path);
        if (st.kind != EntryKind::file) throw IoError(fmt::format("{} is not a regular file", path));
        {
            std::shared_lock lock(mutex_);
            auto it = children_.find(path);
            if (it != children_.end() && it->second->stat_trusted && same_file_state(it->second->file_stat, st))
                return it->second;
        }
        ChildSource source = opener->open(*base_, path);
        if (!source.reader) throw IoError(fmt::format("{}: the source gave no reader", path));
        auto m = std::make_shared<Mount>();
        try {
            m->inner = normalize_relative_path(source.skill_dir);
        } catch (const PathError& e) {
            throw IoError(
                fmt::format("{}: the source gave the skill directory '{}': {}", path, source.skill_dir, e.what()));
        }
        m->reader = std::move(source.reader);
        m->file_stat = st;
        m->stat_trusted = stat_vouches(st);
        std::unique_lock lock(mutex_);
        m->generation = ++generation_;
        MountPtr shared = std::move(m);
        children_[path] = shared;
        return shared;
    }

    void retire_children(const std::unordered_set<std::string_view>& live) {
        std::unique_lock lock(mutex_);
        for (auto it = children_.begin(); it != children_.end();) {
            it = live.count(it->first) > 0 ? std::next(it) : children_.erase(it);
        }
    }

private:
    // Like the parse cache's rule: a stat without time or identity, a link, or a file modified
    // in the last two seconds (another write in the same tick would leave the stat unchanged)
    // does not vouch for the bytes; such a child is opened again on every discovery.
    static bool stat_vouches(const FileStat& st) {
        if (st.is_symlink || (st.mtime_ns == 0 && st.identity == 0)) return false;
        constexpr std::int64_t racy_window_ns = 2'000'000'000;
        const std::int64_t now_ns =
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count();
        return now_ns - st.mtime_ns >= racy_window_ns;
    }

    // A mount's generation mixed into the identities it reports: a reopened child is new.
    static void mix_generation(FileStat& st, const Mount& m) noexcept {
        st.identity ^= m.generation * 0x9E3779B97F4A7C15ULL;
    }

    MountPtr route(std::string_view path, std::string& inner) const {
        std::size_t bang = 0;
        MountPtr m = find(path, bang);
        if (!m) return nullptr;
        const std::string_view rest = bang + 1 >= path.size() ? std::string_view() : path.substr(bang + 2);
        inner = rest.empty() ? std::string(".") : normalize_relative_path(rest);
        return m;
    }

    SkillReaderPtr base_;
    SkillSources sources_;
    mutable std::shared_mutex mutex_;
    std::map<std::string, MountPtr, std::less<>> roots_;     // key: label; fixed after construction
    std::map<std::string, MountPtr, std::less<>> children_;  // key: the child file's path
    std::uint64_t generation_ = 0;                           // guarded by mutex_
};

namespace {

// "demo.skill" -> "demo": the name a source child is selected by before it is opened.
std::string child_stem(std::string_view file_name) {
    const std::size_t dot = file_name.rfind('.');
    return std::string(dot == 0 || dot == std::string_view::npos ? file_name : file_name.substr(0, dot));
}

std::string mounted_path(std::string_view prefix, std::string_view inner) {
    std::string out(prefix);
    out += '!';
    if (inner != ".") {
        out += '/';
        out += inner;
    }
    return out;
}

Root failed_root(const std::string& root, std::string why, bool missing) {
    Root r;
    r.path = root;
    r.failure = std::move(why);
    r.failure_missing = missing;
    return r;
}

}  // namespace

std::string source_child_name(std::string_view file_name) { return child_stem(file_name); }

void Storage::install_sources(SkillSources sources) {
    if (sources.child_openers.empty() && sources.root_resolvers.empty()) return;
    router_ = std::make_shared<SourceRouter>(reader_, std::move(sources));
    routed_reader_ = router_;
}

bool Storage::routed(std::string_view path) const {
    std::size_t bang = 0;
    return router_ && router_->find(path, bang) != nullptr;
}

const SkillReaderPtr& Storage::reader_for_path(std::string_view path) const {
    return routed(path) ? routed_reader_ : reader_;
}

std::optional<Root> Storage::source_root(const std::string& root) const {
    if (!router_) return std::nullopt;
    for (const RootResolver& resolve : router_->sources().root_resolvers) {
        std::optional<RootSource> source;
        try {
            source = resolve(root);
        } catch (const ConfigurationError&) {
            throw;
        } catch (const NotFoundError& e) {
            return failed_root(root, fmt::format("library root {} does not exist: {}", root, e.what()), true);
        } catch (const std::exception& e) {
            return failed_root(root, fmt::format("cannot open library root {}: {}", root, e.what()), false);
        }
        if (!source) continue;
        if (!source->reader || source->label.empty()) {
            throw ConfigurationError(fmt::format("library root {}: the source gave no reader or no label", root));
        }
        std::string inner;
        try {
            inner = normalize_relative_path(source->path);
        } catch (const PathError& e) {
            throw ConfigurationError(fmt::format("invalid library root '{}': {}", root, e.what()));
        }
        router_->add_root(source->label, std::move(source->reader));
        Root r;
        r.path = mounted_path(source->label, inner);
        return r;
    }
    return std::nullopt;
}

bool Storage::accepts_child(std::string_view file_name) const {
    if (!router_) return false;
    for (const ChildOpener& o : router_->sources().child_openers) {
        if (o.accepts(file_name)) return true;
    }
    return false;
}

void Storage::open_child(Candidate& c) const {
    c.skill_file = c.child_dir;  // what a failure names
    const SourceRouter::MountPtr m = router_->open_child(c.child_dir);
    c.skill_dir = mounted_path(c.child_dir, m->inner);
    c.skill_file = join_path(c.skill_dir, skill_file_name);
    if (m->inner != ".") c.dir_name = std::string(path_basename(m->inner));
}

void Storage::retire_children(const std::vector<Candidate>& candidates) const {
    if (!router_) return;
    std::unordered_set<std::string_view> live;
    for (const Candidate& c : candidates) {
        if (c.source_child) live.insert(c.child_dir);
    }
    router_->retire_children(live);
}

}  // namespace agentskills::detail
