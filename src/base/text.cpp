// Text made safe for the model, JSON and terminals (see text.hpp).
#include "agentskills/base/text.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <utility>

// SSE2 (every x86-64) scans 16 bytes a step; elsewhere, or with AGENTSKILLS_PORTABLE_TEXT
// (how the portable path is tested on x86-64), 8-byte words do.
#if defined(__SSE2__) && !defined(AGENTSKILLS_PORTABLE_TEXT)
#define AGENTSKILLS_TEXT_SSE2 1
#include <emmintrin.h>
// Where the compiler can build one function for AVX2 and the machine has it (asked once, at
// run time), the plain-text scan of long text goes 256 bytes a step.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AGENTSKILLS_TEXT_AVX2 1
#include <immintrin.h>
#endif
#endif

#include <fmt/core.h>
#include <utf8proc.h>

#include "agentskills/base/names.hpp"
#include "byte_scans.hpp"
#include "model_output.hpp"

namespace agentskills {
namespace {

constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

// Calls f(code_point, bytes) for the code point of `text` at `pos` (< text.size()); an
// ill-formed byte is passed as code point -1 with its one byte. Returns where the next starts.
template <typename F>
std::size_t code_point_at(std::string_view text, std::size_t pos, F&& f) {
    const auto c = static_cast<unsigned char>(text[pos]);
    if (c < 0x80) {
        f(static_cast<std::int32_t>(c), text.substr(pos, 1));
        return pos + 1;
    }
    utf8proc_int32_t cp = 0;
    const auto n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(text.data() + pos),
                                    static_cast<utf8proc_ssize_t>(text.size() - pos), &cp);
    if (n <= 0) {
        f(-1, text.substr(pos, 1));
        return pos + 1;
    }
    const auto len = static_cast<std::size_t>(n);
    f(static_cast<std::int32_t>(cp), text.substr(pos, len));
    return pos + len;
}

// code_point_at for each code point of `text`.
template <typename F>
void for_each_code_point(std::string_view text, F&& f) {
    std::size_t pos = 0;
    while (pos < text.size()) pos = code_point_at(text, pos, f);
}

constexpr std::uint64_t byte_ones = 0x0101010101010101ULL;
constexpr std::uint64_t byte_highs = 0x8080808080808080ULL;
constexpr std::uint64_t byte_lows = 0x7F7F7F7F7F7F7F7FULL;

// The high bit of each byte of `w` that is zero, and maybe of a 0x01 byte above one: exact as
// to whether there is a zero byte.
constexpr std::uint64_t zero_bytes(std::uint64_t w) noexcept { return (w - byte_ones) & ~w & byte_highs; }

// The high bit of each byte of `w` equal to `c` (below 0x80), exact when no byte of `w` is
// from 0x80 on: the sums then stay inside their byte.
constexpr std::uint64_t bytes_equal(std::uint64_t w, unsigned char c) noexcept {
    const std::uint64_t t = w ^ (byte_ones * c);
    return ~((t + byte_lows) | t) & byte_highs;
}

// Zero when none of the eight bytes of `w` needs a look of its own: none is from 0x80 on, a
// control other than TAB and LF, or DEL, nor (with Xml) one of `& < > " '`. Nonzero otherwise
// (when a byte is from 0x80 on, the other bits are meaningless but the result is nonzero).
template <bool Xml>
constexpr std::uint64_t special_bytes(std::uint64_t w) noexcept {
    const std::uint64_t controls = ~(w + byte_ones * 0x60) & byte_highs;  // bytes below 0x20
    std::uint64_t special =
        (w & byte_highs) | (controls & ~bytes_equal(w, '\t') & ~bytes_equal(w, '\n')) | bytes_equal(w, 0x7F);
    if constexpr (Xml) {
        special |= bytes_equal(w, '&') | bytes_equal(w, '<') | bytes_equal(w, '>') | bytes_equal(w, '"') |
                   bytes_equal(w, '\'');
    }
    return special;
}

std::uint64_t load_word(const char* p) noexcept {
    std::uint64_t w = 0;
    std::memcpy(&w, p, sizeof w);
    return w;
}

std::string_view xml_entity(unsigned char c) noexcept {
    switch (c) {
        case '&':
            return "&amp;";
        case '<':
            return "&lt;";
        case '>':
            return "&gt;";
        case '"':
            return "&quot;";
        case '\'':
            return "&apos;";
        default:
            return {};
    }
}

#if defined(AGENTSKILLS_TEXT_AVX2)
// One 32-byte vector of plain_blocks_avx2: all ones where the byte is printable ASCII or a LF.
__attribute__((target("avx2"))) inline __m256i plain_lanes_avx2(const char* at) noexcept {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(at));
    return _mm256_or_si256(_mm256_cmpgt_epi8(_mm256_add_epi8(v, _mm256_set1_epi8(1)), _mm256_set1_epi8(0x20)),
                           _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')));
}

// Where the first 256-byte block from `pos` that is not all printable ASCII and LF starts
// (the test of the SSE2 block loop in skip_plain, 32 bytes a vector).
__attribute__((target("avx2"))) std::size_t plain_blocks_avx2(const char* p, std::size_t n, std::size_t pos) noexcept {
    while (n - pos >= 256) {
        const char* at = p + pos;
        const __m256i all = _mm256_and_si256(
            _mm256_and_si256(_mm256_and_si256(plain_lanes_avx2(at), plain_lanes_avx2(at + 32)),
                             _mm256_and_si256(plain_lanes_avx2(at + 64), plain_lanes_avx2(at + 96))),
            _mm256_and_si256(_mm256_and_si256(plain_lanes_avx2(at + 128), plain_lanes_avx2(at + 160)),
                             _mm256_and_si256(plain_lanes_avx2(at + 192), plain_lanes_avx2(at + 224))));
        if (_mm256_movemask_epi8(all) != -1) break;
        pos += 256;
    }
    return pos;
}

bool detect_avx2() noexcept {
    __builtin_cpu_init();  // (its result may be asked for before libgcc's own constructor ran)
    return __builtin_cpu_supports("avx2") != 0;
}
// False until this initializer runs: a scan before it takes the SSE2 steps, with the same result.
const bool machine_has_avx2 = detect_avx2();
#endif

// The length of the leading run of `text` (from `pos`) that is plain to special_bytes<Xml>,
// in steps of 16 bytes (SSE2) or 8, and for Xml = false first in blocks of 256 (AVX2) and 128
// (SSE2) of printable ASCII and LF; what is left is looked at byte by byte.
template <bool Xml>
std::size_t skip_plain(const char* p, std::size_t n, std::size_t pos) noexcept {
#if defined(AGENTSKILLS_TEXT_SSE2)
    // The same test as special_bytes, 16 bytes at a time (64 a step while all is plain).
    const auto special = [](__m128i v) {
        // v + 1 wraps DEL to 0x80 and 0xFF to 0x00, so one signed "below 0x21" finds the
        // controls, DEL and every byte from 0x80 on; TAB and LF are taken out again.
        __m128i out = _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(1)), _mm_set1_epi8(0x21));
        out = _mm_andnot_si128(
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))), out);
        if constexpr (Xml) {
            out = _mm_or_si128(
                out, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('&')), _mm_cmpeq_epi8(v, _mm_set1_epi8('<'))));
            out = _mm_or_si128(
                out, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('>')), _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))));
            out = _mm_or_si128(out, _mm_cmpeq_epi8(v, _mm_set1_epi8('\'')));
        }
        return out;
    };
    const auto load = [p](std::size_t at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at)); };
    if constexpr (!Xml) {
        // Long text (a skill's body) first goes 128 bytes a step, with four operations a vector:
        // a block goes by when each byte is printable ASCII or a LF (v + 1 takes exactly 0x20-0x7E
        // to the signed bytes above 0x20). A block with anything else (a TAB too) is left to the
        // exact steps below.
        const __m128i one = _mm_set1_epi8(1);
        const __m128i floor = _mm_set1_epi8(0x20);
        const __m128i lf = _mm_set1_epi8('\n');
        const auto plain = [&](std::size_t at) {
            const __m128i v = load(at);
            return _mm_or_si128(_mm_cmpgt_epi8(_mm_add_epi8(v, one), floor), _mm_cmpeq_epi8(v, lf));
        };
#if defined(AGENTSKILLS_TEXT_AVX2)
        if (machine_has_avx2) pos = plain_blocks_avx2(p, n, pos);
#endif
        while (n - pos >= 128) {
            __m128i all = _mm_and_si128(_mm_and_si128(plain(pos), plain(pos + 16)),
                                        _mm_and_si128(plain(pos + 32), plain(pos + 48)));
            all = _mm_and_si128(all, _mm_and_si128(_mm_and_si128(plain(pos + 64), plain(pos + 80)),
                                                   _mm_and_si128(plain(pos + 96), plain(pos + 112))));
            if (_mm_movemask_epi8(all) != 0xFFFF) break;
            pos += 128;
        }
    }
    while (n - pos >= 64) {
        const __m128i any = _mm_or_si128(_mm_or_si128(special(load(pos)), special(load(pos + 16))),
                                         _mm_or_si128(special(load(pos + 32)), special(load(pos + 48))));
        if (_mm_movemask_epi8(any) != 0) break;
        pos += 64;
    }
    while (n - pos >= 16) {
        const int mask = _mm_movemask_epi8(special(load(pos)));
        if (mask != 0) return pos + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        pos += 16;
    }
#else
    while (n - pos >= 16 &&
           (special_bytes<Xml>(load_word(p + pos)) | special_bytes<Xml>(load_word(p + pos + 8))) == 0) {
        pos += 16;
    }
#endif
    if (n - pos >= 8 && special_bytes<Xml>(load_word(p + pos)) == 0) pos += 8;
    return pos;
}

// The one pass behind model_text and the private finishing functions: appends `text` as model
// text (text.hpp) to `out`; with Finish also U+FFFE and U+FFFF as U+FFFD; with Xml also `& < >
// " '` as entities (they are ASCII, so escaping before or after the rest gives the same bytes).
// Runs that need no change are appended in one piece; clean stretches are skipped 8 or 16 bytes at a time.
template <bool Xml, bool Finish>
void append_model(std::string& out, std::string_view text) {
    const char* p = text.data();
    const std::size_t n = text.size();
    std::size_t run = 0;  // the first byte not appended yet
    std::size_t pos = 0;
    bool after_cr = false;
    auto replace = [&](std::size_t len, std::string_view with) {
        out.append(p + run, pos - run);
        out.append(with);
        pos += len;
        run = pos;
    };
    while (pos < n) {
        if (!after_cr) {  // (a LF right after a CR is not plain)
            const std::size_t next = skip_plain<Xml>(p, n, pos);
            if (next != pos) {
                pos = next;
                continue;
            }
        }
        const auto c = static_cast<unsigned char>(p[pos]);
        const bool was_cr = std::exchange(after_cr, false);
        if (c < 0x80) {
            if (c == '\r') {
                replace(1, "\n");
                after_cr = true;
            } else if (c == '\n') {
                if (was_cr) {
                    replace(1, {});  // CR LF: the CR already gave the LF
                } else {
                    ++pos;
                }
            } else if (c == '\t') {
                ++pos;
            } else if (c < 0x20 || c == 0x7F) {
                replace(1, replacement_character);
            } else if (std::string_view entity = Xml ? xml_entity(c) : std::string_view(); !entity.empty()) {
                replace(1, entity);
            } else {
                ++pos;
            }
            continue;
        }
        utf8proc_int32_t cp = 0;
        const auto len = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(p + pos),
                                          static_cast<utf8proc_ssize_t>(n - pos), &cp);
        if (len <= 0) {
            replace(1, replacement_character);
        } else if (is_control_code_point(static_cast<char32_t>(cp)) || (Finish && (cp == 0xFFFE || cp == 0xFFFF))) {
            replace(static_cast<std::size_t>(len), replacement_character);
        } else {
            pos += static_cast<std::size_t>(len);
        }
    }
    out.append(p + run, n - run);
}

// Whether append_model<false, Finish> would append `text` unchanged.
template <bool Finish>
bool is_clean(std::string_view text) noexcept {
    // Plain printable ASCII, TAB and LF are the common case: 8 or 16 bytes a step where nothing
    // needs a look, one comparison a byte elsewhere; only bytes from 0x80 on are decoded.
    const auto* p = reinterpret_cast<const unsigned char*>(text.data());
    const std::size_t n = text.size();
    std::size_t pos = 0;
    while (pos < n) {
        if (const std::size_t next = skip_plain<false>(text.data(), n, pos); next != pos) {
            pos = next;
            continue;
        }
        const unsigned char c = p[pos];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F) return false;
            ++pos;
            continue;
        }
        utf8proc_int32_t cp = 0;
        const auto len = utf8proc_iterate(p + pos, static_cast<utf8proc_ssize_t>(n - pos), &cp);
        if (len <= 0 || is_control_code_point(static_cast<char32_t>(cp))) return false;
        if (Finish && (cp == 0xFFFE || cp == 0xFFFF)) return false;
        pos += static_cast<std::size_t>(len);
    }
    return true;
}

}  // namespace

bool is_model_text(std::string_view text) noexcept { return is_clean<false>(text); }

std::string model_text(std::string_view text) {
    if (is_model_text(text)) return std::string(text);
    std::string out;
    out.reserve(text.size());
    append_model<false, false>(out, text);
    return out;
}

namespace detail {

bool is_finished_model_text(std::string_view text) noexcept { return is_clean<true>(text); }

std::string finished_model_text(std::string_view text) {
    if (is_finished_model_text(text)) return std::string(text);
    std::string out;
    out.reserve(text.size());
    append_model<false, true>(out, text);
    return out;
}

void append_finished_xml(std::string& out, std::string_view text) { append_model<true, true>(out, text); }

std::size_t skip_plain_text(std::string_view text, std::size_t pos) noexcept {
    return pos >= text.size() ? text.size() : skip_plain<false>(text.data(), text.size(), pos);
}

std::size_t count_code_points(std::string_view s) noexcept {
    const char* p = s.data();
    const std::size_t n = s.size();
    std::size_t continuation = 0;
    std::size_t pos = 0;
#if defined(AGENTSKILLS_TEXT_SSE2)
    // A continuation byte (0x80-0xBF) is, as a signed byte, below -64.
    const __m128i below = _mm_set1_epi8(-64);
    while (n - pos >= 16) {
        __m128i lanes = _mm_setzero_si128();
        const std::size_t steps = std::min<std::size_t>((n - pos) / 16, 255);
        for (std::size_t k = 0; k < steps; ++k, pos += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos));
            lanes = _mm_sub_epi8(lanes, _mm_cmplt_epi8(v, below));
        }
        const __m128i sums = _mm_sad_epu8(lanes, _mm_setzero_si128());
        continuation +=
            static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) + static_cast<std::size_t>(_mm_extract_epi16(sums, 4));
    }
#endif
    while (n - pos >= 8) {
        const std::uint64_t x = load_word(p + pos);
        // High bit of a byte set and the next bit clear: moving each byte's bit 6 up one place
        // lines it up with bit 7 (what crosses into the next byte is masked off).
        const std::uint64_t marks = x & ~(x << 1) & byte_highs;
        continuation += static_cast<std::size_t>(((marks >> 7) * byte_ones) >> 56);
        pos += 8;
    }
    for (; pos < n; ++pos) continuation += (static_cast<unsigned char>(p[pos]) & 0xC0) == 0x80 ? 1 : 0;
    return n - continuation;
}

namespace {

// scan_text's UTF-8 check, fed the bytes from 0x80 on as the pass finds them: `mask` has bit k
// set when s[base + k] is one. Each such byte not yet inside a checked sequence must start one
// (utf8_sequence_length); a continuation byte with no lead before it fails there. Sequences may
// run past the block: `checked` carries over to the next one.
struct Utf8Check {
    std::string_view s;
    TextScan& out;
    std::size_t checked = 0;  // bytes before this are known to be well-formed
    bool seen = false;

    void block(std::size_t base, std::uint64_t mask) noexcept {
        if (!seen) {
            seen = true;
            out.first_non_ascii = base + static_cast<std::size_t>(__builtin_ctzll(mask));
        }
        if (!out.valid_utf8) return;
        // The bytes of a sequence that began in an earlier block.
        if (checked > base) mask = checked - base >= 64 ? 0 : mask & (~std::uint64_t{0} << (checked - base));
        while (mask != 0) {
            const std::size_t at = base + static_cast<std::size_t>(__builtin_ctzll(mask));
            const std::size_t length = utf8_sequence_length(s, at);
            if (length == 0) {
                out.valid_utf8 = false;
                return;
            }
            checked = at + length;
            // Its continuation bytes, and what came before them, are done.
            mask = checked - base >= 64 ? 0 : mask & (~std::uint64_t{0} << (checked - base));
        }
    }
};

#if defined(AGENTSKILLS_TEXT_AVX2)
// One step of scan_blocks_avx2: the 32 bytes at `p`, their newlines added to `lanes` (when
// counted), their NUL and CR bytes to `flags`; returns them for their high bits.
template <bool Count>
__attribute__((target("avx2"), always_inline)) inline __m256i avx2_scan_step(const char* p, __m256i& lanes,
                                                                             __m256i& flags) noexcept {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    if constexpr (Count) lanes = _mm256_sub_epi8(lanes, _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')));
    flags = _mm256_or_si256(flags, _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_setzero_si256()),
                                                   _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r'))));
    return v;
}

// scan_text's steps of 32 bytes (AVX2), in chunks of at most 255 steps (a lane counts up to
// 255 newlines); returns where it stopped (fewer than 32 bytes left).
template <bool Count>
__attribute__((target("avx2"))) std::size_t scan_blocks_avx2(std::string_view s, std::size_t pos, TextScan& out,
                                                             Utf8Check& utf8) noexcept {
    const char* p = s.data();
    const std::size_t n = s.size();
    const __m256i zero = _mm256_setzero_si256();
    while (n - pos >= 32) {
        __m256i lanes = zero;
        __m256i flags = zero;
        const std::size_t steps = std::min<std::size_t>((n - pos) / 32, 255);
        // Four steps, then one look at their high bits (ASCII text has none); each step's own
        // bits only where some are set.
        std::size_t k = 0;
        for (; k + 4 <= steps; k += 4, pos += 128) {
            const __m256i a = avx2_scan_step<Count>(p + pos, lanes, flags);
            const __m256i b = avx2_scan_step<Count>(p + pos + 32, lanes, flags);
            const __m256i c = avx2_scan_step<Count>(p + pos + 64, lanes, flags);
            const __m256i d = avx2_scan_step<Count>(p + pos + 96, lanes, flags);
            if (_mm256_movemask_epi8(_mm256_or_si256(_mm256_or_si256(a, b), _mm256_or_si256(c, d))) == 0) continue;
            std::size_t at = pos;
            for (const __m256i v : {a, b, c, d}) {
                const auto high = static_cast<std::uint32_t>(_mm256_movemask_epi8(v));
                if (high != 0) utf8.block(at, high);
                at += 32;
            }
        }
        for (; k < steps; ++k, pos += 32) {
            const auto high =
                static_cast<std::uint32_t>(_mm256_movemask_epi8(avx2_scan_step<Count>(p + pos, lanes, flags)));
            if (high != 0) utf8.block(pos, high);
        }
        if constexpr (Count) {
            // Through memory, not _mm256_extract_epi64: GCC 12 refuses that one's selector
            // without optimization (a Debug build), where it is not folded to a constant.
            alignas(32) std::uint64_t sums[4];
            _mm256_store_si256(reinterpret_cast<__m256i*>(sums), _mm256_sad_epu8(lanes, zero));
            out.newlines += static_cast<std::size_t>(sums[0] + sums[1] + sums[2] + sums[3]);
        }
        if (_mm256_movemask_epi8(flags) != 0) out.nul_or_cr = true;
    }
    return pos;
}
#endif

template <bool Count>
TextScan scan_text_impl(std::string_view s) noexcept {
    TextScan out;
    out.first_non_ascii = s.size();
    Utf8Check utf8{s, out};
    const char* p = s.data();
    const std::size_t n = s.size();
    std::size_t pos = 0;
#if defined(AGENTSKILLS_TEXT_SSE2)
#if defined(AGENTSKILLS_TEXT_AVX2)
    if (machine_has_avx2) pos = scan_blocks_avx2<Count>(s, pos, out, utf8);
#endif
    const __m128i lf = _mm_set1_epi8('\n');
    const __m128i cr = _mm_set1_epi8('\r');
    const __m128i zero = _mm_setzero_si128();
    while (n - pos >= 16) {
        __m128i lanes = zero;
        __m128i flags = zero;
        const std::size_t steps = std::min<std::size_t>((n - pos) / 16, 255);
        for (std::size_t k = 0; k < steps; ++k, pos += 16) {
            const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos));
            if constexpr (Count) lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(v, lf));
            flags = _mm_or_si128(flags, _mm_or_si128(_mm_cmpeq_epi8(v, zero), _mm_cmpeq_epi8(v, cr)));
            const auto high = static_cast<std::uint32_t>(_mm_movemask_epi8(v));
            if (high != 0) utf8.block(pos, high);
        }
        if constexpr (Count) {
            const __m128i sums = _mm_sad_epu8(lanes, zero);
            out.newlines += static_cast<std::size_t>(_mm_cvtsi128_si32(sums)) +
                            static_cast<std::size_t>(_mm_extract_epi16(sums, 4));
        }
        if (_mm_movemask_epi8(flags) != 0) out.nul_or_cr = true;
    }
#endif
    while (n - pos >= 8) {
        const std::uint64_t x = load_word(p + pos);
        if constexpr (Count) {
            const std::uint64_t y = x ^ (byte_ones * '\n');
            const std::uint64_t nonzero = ((y & byte_lows) + byte_lows) | y;
            out.newlines += static_cast<std::size_t>((((~nonzero & byte_highs) >> 7) * byte_ones) >> 56);
        }
        if ((zero_bytes(x) | zero_bytes(x ^ (byte_ones * '\r'))) != 0) out.nul_or_cr = true;
        if (const std::uint64_t high = x & byte_highs; high != 0) {
            std::uint64_t mask = 0;  // one bit per byte, in the order of the bytes
            for (unsigned k = 0; k < 8; ++k) {
                if ((static_cast<unsigned char>(p[pos + k]) & 0x80) != 0) mask |= std::uint64_t{1} << k;
            }
            utf8.block(pos, mask);
        }
        pos += 8;
    }
    for (; pos < n; ++pos) {
        const auto c = static_cast<unsigned char>(p[pos]);
        if constexpr (Count) out.newlines += c == '\n' ? 1 : 0;
        if (c == '\0' || c == '\r') out.nul_or_cr = true;
        if (c >= 0x80) utf8.block(pos, 1);
    }
    return out;
}

}  // namespace

TextScan scan_text(std::string_view s, bool count_lines) noexcept {
    return count_lines ? scan_text_impl<true>(s) : scan_text_impl<false>(s);
}

namespace {

constexpr std::array<bool, 256> yaml_indicator_bytes = [] {
    std::array<bool, 256> t{};
    for (const char c : std::string_view("\n[{]},&*!-?:")) t[static_cast<unsigned char>(c)] = true;
    return t;
}();

}  // namespace

std::uint64_t yaml_indicator_mask(std::string_view s, std::size_t pos) noexcept {
    const char* p = s.data();
    const std::size_t n = s.size();
    if (pos >= n) return 0;
    const std::size_t count = std::min<std::size_t>(n - pos, 64);
    std::uint64_t mask = 0;
    std::size_t k = 0;
#if defined(AGENTSKILLS_TEXT_SSE2)
    const auto eq = [](__m128i v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
    for (; k + 16 <= count; k += 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos + k));
        // `[ ] { }` are 0x5B 0x5D 0x7B 0x7D: with bit 5 set, two values.
        const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
        __m128i m = _mm_or_si128(_mm_or_si128(eq(v, '\n'), eq(folded, '{')), _mm_or_si128(eq(folded, '}'), eq(v, ',')));
        m = _mm_or_si128(m, _mm_or_si128(_mm_or_si128(eq(v, '&'), eq(v, '*')), _mm_or_si128(eq(v, '!'), eq(v, '-'))));
        m = _mm_or_si128(m, _mm_or_si128(eq(v, '?'), eq(v, ':')));
        mask |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(m))) << k;
    }
#endif
    for (; k < count; ++k) {
        if (yaml_indicator_bytes[static_cast<unsigned char>(p[pos + k])]) mask |= std::uint64_t{1} << k;
    }
    return mask;
}

std::size_t find_either_byte(std::string_view s, std::size_t pos, char a, char b) noexcept {
    const char* p = s.data();
    const std::size_t n = s.size();
    if (pos >= n) return n;
#if defined(AGENTSKILLS_TEXT_SSE2)
    const __m128i va = _mm_set1_epi8(a);
    const __m128i vb = _mm_set1_epi8(b);
    while (n - pos >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos));
        const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, va), _mm_cmpeq_epi8(v, vb)));
        if (mask != 0) return pos + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        pos += 16;
    }
#endif
    const std::uint64_t wa = byte_ones * static_cast<unsigned char>(a);
    const std::uint64_t wb = byte_ones * static_cast<unsigned char>(b);
    while (n - pos >= 8) {
        // Exact as to whether a byte of the word matches (not as to which one).
        const std::uint64_t w = load_word(p + pos);
        if ((zero_bytes(w ^ wa) | zero_bytes(w ^ wb)) != 0) break;
        pos += 8;
    }
    for (; pos < n; ++pos) {
        if (p[pos] == a || p[pos] == b) return pos;
    }
    return n;
}

}  // namespace detail

namespace {

// The first byte from `pos` on that a JSON string literal escapes: below 0x20, `"` or `\\`,
// and with Ascii also DEL and every byte from 0x80 on; `n` when there is none. Long clean
// stretches go 16 bytes (SSE2) or 8 bytes a step.
template <bool Ascii>
std::size_t next_json_special(const char* p, std::size_t n, std::size_t pos) noexcept {
#if defined(AGENTSKILLS_TEXT_SSE2)
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    while (n - pos >= 16) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + pos));
        __m128i special = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash));
        if constexpr (Ascii) {
            // Signed: a byte from 0x80 on is negative, so below 0x20 too.
            special = _mm_or_si128(special, _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
            special = _mm_or_si128(special, _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)));
        } else {
            // Unsigned v < 0x20: min(v, 0x1F) == v.
            special = _mm_or_si128(special, _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v));
        }
        const int mask = _mm_movemask_epi8(special);
        if (mask != 0) return pos + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        pos += 16;
    }
#endif
    while (n - pos >= 8) {
        const std::uint64_t w = load_word(p + pos);
        // Each test is exact as to whether some byte matches (not as to which one).
        std::uint64_t special =
            ((w - byte_ones * 0x20) & ~w) | zero_bytes(w ^ (byte_ones * '"')) | zero_bytes(w ^ (byte_ones * '\\'));
        if constexpr (Ascii) special |= w | zero_bytes(w ^ (byte_ones * 0x7F));
        if ((special & byte_highs) != 0) break;
        pos += 8;
    }
    for (; pos < n; ++pos) {
        const auto c = static_cast<unsigned char>(p[pos]);
        if (c < 0x20 || c == '"' || c == '\\' || (Ascii && c >= 0x7F)) return pos;
    }
    return n;
}

}  // namespace

std::string terminal_text(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    const auto one = [&](std::int32_t cp, std::string_view bytes) {
        if (cp < 0) {
            out += replacement_character;
        } else if (cp == '\\') {
            out += "\\\\";
        } else if (cp == '\t') {
            out += "\\t";
        } else if (cp == '\n') {
            out += "\\n";
        } else if (cp == '\r') {
            out += "\\r";
        } else if (cp < 0x80 && is_control_code_point(static_cast<char32_t>(cp))) {
            out += fmt::format("\\x{:02x}", cp);
        } else if (is_control_code_point(static_cast<char32_t>(cp))) {
            out += fmt::format("\\u{:04x}", cp);
        } else {
            out += bytes;
        }
    };
    // Printable ASCII other than `\` is written as it is: such runs (a whole diagnostic, nearly
    // always) go in one piece, found 16 or 8 bytes a step (the scan also stops at `"`, which the
    // step below then writes unchanged).
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t special = next_json_special<true>(text.data(), text.size(), pos);
        out.append(text.substr(pos, special - pos));
        if (special == text.size()) break;
        pos = code_point_at(text, special, one);
    }
    return out;
}

namespace detail {

std::size_t json_string_bound(std::string_view s) noexcept {
    std::size_t n = 2 + s.size();
    for (std::size_t pos = next_json_special<false>(s.data(), s.size(), 0); pos < s.size();
         pos = next_json_special<false>(s.data(), s.size(), pos + 1)) {
        n += static_cast<unsigned char>(s[pos]) < 0x20 ? 5 : 1;
    }
    return n;
}

std::size_t skip_ascii(std::string_view s, std::size_t pos) noexcept {
    const char* p = s.data();
    const std::size_t n = s.size();
    if (pos >= n) return n;
#if defined(AGENTSKILLS_TEXT_SSE2)
    const auto load = [p](std::size_t at) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + at)); };
    while (n - pos >= 64) {  // the sign bits of four blocks at once
        const __m128i any =
            _mm_or_si128(_mm_or_si128(load(pos), load(pos + 16)), _mm_or_si128(load(pos + 32), load(pos + 48)));
        if (_mm_movemask_epi8(any) != 0) break;
        pos += 64;
    }
    while (n - pos >= 16) {
        const int mask = _mm_movemask_epi8(load(pos));
        if (mask != 0) return pos + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
        pos += 16;
    }
#endif
    while (n - pos >= 8 && (load_word(p + pos) & byte_highs) == 0) pos += 8;
    while (pos < n && static_cast<unsigned char>(p[pos]) < 0x80) ++pos;
    return pos;
}

}  // namespace detail

namespace {

template <bool Ascii>
void append_json(std::string& out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    auto u_escape = [&out](std::uint32_t v) {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out.push_back(hex[(v >> shift) & 0xF]);
    };
    const char* p = text.data();
    const std::size_t n = text.size();
    out.reserve(out.size() + n + 2);
    out.push_back('"');
    std::size_t run = 0;  // the first byte not copied yet
    for (std::size_t pos = next_json_special<Ascii>(p, n, 0); pos < n; pos = next_json_special<Ascii>(p, n, pos)) {
        out.append(p + run, pos - run);
        const auto c = static_cast<unsigned char>(p[pos]);
        if (c < 0x80) {
            switch (c) {
                case '"':
                    out += "\\\"";
                    break;
                case '\\':
                    out += "\\\\";
                    break;
                case '\b':
                    out += "\\b";
                    break;
                case '\f':
                    out += "\\f";
                    break;
                case '\n':
                    out += "\\n";
                    break;
                case '\r':
                    out += "\\r";
                    break;
                case '\t':
                    out += "\\t";
                    break;
                default:
                    u_escape(c);
            }
            ++pos;
        } else {  // only with Ascii
            utf8proc_int32_t cp = 0;
            const auto len = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(p + pos),
                                              static_cast<utf8proc_ssize_t>(n - pos), &cp);
            if (len <= 0) {
                u_escape(0xFFFD);
                ++pos;
            } else {
                const auto v = static_cast<std::uint32_t>(cp);
                if (v > 0xFFFF) {
                    u_escape(0xD800 + ((v - 0x10000) >> 10));
                    u_escape(0xDC00 + ((v - 0x10000) & 0x3FF));
                } else {
                    u_escape(v);
                }
                pos += static_cast<std::size_t>(len);
            }
        }
        run = pos;
    }
    out.append(p + run, n - run);
    out.push_back('"');
}

}  // namespace

void append_json_string(std::string& out, std::string_view text, JsonEscape escape) {
    if (escape == JsonEscape::ascii) {
        append_json<true>(out, text);
    } else {
        append_json<false>(out, text);
    }
}

std::string json_string(std::string_view text, JsonEscape escape) {
    std::string out;
    append_json_string(out, text, escape);
    return out;
}

}  // namespace agentskills
