// agentskills-cpp MCP server — the transport-agnostic JSON-RPC handler: framing checks, the two
// protocol eras (2025-11-25 handshake, 2026-07-28 stateless), dispatch to the method groups, and
// the base protocol's errors.
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "../../parse/session.hpp"
#include "../shared/internal.hpp"
#include "agentskills/base/errors.hpp"
#include "agentskills/base/text.hpp"
#include "state.hpp"

namespace agentskills::mcp {

using nlohmann::json;
using namespace detail;  // NOLINT(google-build-using-namespace): the error codes and helpers

namespace {

json supported_versions() { return json::array({std::string(PROTOCOL_2026_07_28), std::string(PROTOCOL_2025_11_25)}); }

// A response around `id` (its JSON text as received: detail::id_text) and a result or an error.
std::string response_text(std::string_view id, std::string_view member, std::string_view body) {
    std::string out;
    out.reserve(32 + id.size() + member.size() + body.size());
    detail::append_response_head(out, id, member);
    out += body;
    out += '}';
    return out;
}

std::string error_response(std::string_view id, int code, std::string_view message, const json& data = nullptr) {
    json err = {{"code", code}, {"message", message}};
    if (!data.is_null()) err["data"] = data;
    return response_text(id, "error", dump(err));
}

}  // namespace

const std::vector<std::string_view>& detail::handshake_versions() {
    static const std::vector<std::string_view> v = {PROTOCOL_2025_11_25, "2025-06-18", "2025-03-26"};
    return v;
}

const json* detail::claimed_protocol_version(const json& params) {
    const auto meta = params.find("_meta");
    if (meta == params.end() || !meta->is_object()) return nullptr;
    const auto version = meta->find(std::string(META_PROTOCOL_VERSION));
    return version == meta->end() ? nullptr : &*version;
}

void detail::append_response_head(std::string& out, std::string_view id, std::string_view member) {
    out += R"({"jsonrpc":"2.0","id":)";
    out += id;
    out += ",\"";
    out += member;
    out += "\":";
}

json Server::Impl::initialize(const json& params, Session& session) const {
    const std::string& requested = string_param(params, "protocolVersion");
    std::string version(PROTOCOL_2025_11_25);
    for (auto v : handshake_versions()) {
        if (v == requested) version = requested;
    }
    {
        std::lock_guard lock(session.mutex);
        session.initialized = true;
        session.version = version;
    }
    return {{"protocolVersion", version}, {"capabilities", capabilities()}, {"serverInfo", server_info()}};
}

json Server::Impl::discover() const {
    return {{"supportedVersions", supported_versions()},
            {"capabilities", capabilities()},
            {"_meta", {{std::string(META_SERVER_INFO), server_info()}}}};
}

Exchange Server::handle(std::string_view message, Session& session) const {
    return ServerAccess::handle(*this, message, nullptr, session);
}

Exchange detail::ServerAccess::handle(const Server& server, std::string_view message, json* parsed, Session& session) {
    using Impl = Server::Impl;
    Impl& impl = *server.impl_;
    Exchange ex;
    const auto fail = [&](std::string_view id, int code, std::string_view text, const json& data = nullptr) {
        ex.error_code = code;
        ex.response = error_response(id, code, text, data);
        return ex;
    };
    constexpr std::string_view no_id = "null";
    if (message.size() > impl.options.max_message_bytes) {
        return fail(
            no_id, INVALID_REQUEST,
            fmt::format("Invalid Request: the message is larger than {} bytes", impl.options.max_message_bytes));
    }
    json msg;
    if (parsed != nullptr) {
        msg = std::move(*parsed);
    } else {
        std::string repeated;
        switch (read_message(message, impl.options.max_json_depth, msg, &repeated)) {
            case MessageFault::none:
                break;
            case MessageFault::depth:
                return fail(no_id, INVALID_REQUEST,
                            fmt::format("Invalid Request: the message nests deeper than {} levels",
                                        impl.options.max_json_depth));
            case MessageFault::duplicate_key:
                return fail(no_id, INVALID_REQUEST,
                            fmt::format("Invalid Request: the key \"{}\" appears twice in one object",
                                        agentskills::detail::shown(repeated)));
            case MessageFault::syntax:
                return fail(no_id, PARSE_ERROR, "Parse error: the message is not valid JSON");
        }
    }
    if (msg.is_array()) return fail(no_id, INVALID_REQUEST, "Invalid Request: batches are not supported");
    if (!msg.is_object()) return fail(no_id, INVALID_REQUEST, "Invalid Request: a message is a JSON object");

    const auto id_it = msg.find("id");
    const bool has_id = id_it != msg.end();
    const bool id_ok = has_id && (id_it->is_string() || id_it->is_number());
    // The id as received: a number of any size or form is echoed as its token (detail::id_text).
    const std::string id = id_ok ? id_text(message, *id_it) : std::string(no_id);
    const auto method_it = msg.find("method");
    if (method_it == msg.end()) {
        // A response from the client (we send no requests) is dropped; anything else is invalid.
        if (has_id && (msg.contains("result") || msg.contains("error"))) return ex;
        return fail(id, INVALID_REQUEST, "Invalid Request: no method");
    }
    const auto jsonrpc = msg.find("jsonrpc");
    if (jsonrpc == msg.end() || *jsonrpc != "2.0")
        return fail(id, INVALID_REQUEST, "Invalid Request: jsonrpc must be \"2.0\"");
    if (!method_it->is_string()) return fail(id, INVALID_REQUEST, "Invalid Request: method must be a string");
    if (has_id && !id_ok) return fail(no_id, INVALID_REQUEST, "Invalid Request: id must be a string or a number");
    ex.method = method_it->get<std::string>();
    json params = json::object();
    if (const auto p = msg.find("params"); p != msg.end()) {
        if (p->is_array()) return has_id ? fail(id, INVALID_PARAMS, "Invalid params: params must be an object") : ex;
        if (!p->is_object())
            return has_id ? fail(id, INVALID_REQUEST, "Invalid Request: params must be an object") : ex;
        params = std::move(*p);
    }

    if (!has_id) {
        // Notifications: nothing to answer; `initialized` and `cancelled` need nothing either
        // (requests are answered synchronously, so there is nothing in flight to cancel).
        if (ex.method == "notifications/initialized") {
            std::lock_guard lock(session.mutex);
            session.initialized = true;
        }
        return ex;
    }

    if (const auto m = params.find("_meta"); m != params.end() && !m->is_object()) {
        return fail(id, INVALID_PARAMS, "Invalid params: _meta must be an object");
    }
    const json* claimed = claimed_protocol_version(params);
    const bool modern = claimed != nullptr;
    ex.modern = modern;
    try {
        if (modern) {
            const json& v = *claimed;
            if (!v.is_string()) invalid_params("_meta io.modelcontextprotocol/protocolVersion must be a string");
            if (v.get_ref<const std::string&>() != PROTOCOL_2026_07_28) {
                throw RpcError(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                               {{"supported", supported_versions()}, {"requested", v}});
            }
            const json& meta = params.at("_meta");  // an object: claimed_protocol_version found the version there
            const auto caps = meta.find(std::string(META_CLIENT_CAPABILITIES));
            if (caps == meta.end() || !caps->is_object()) {
                invalid_params("_meta io.modelcontextprotocol/clientCapabilities must be an object");
            }
        } else if (ex.method != "initialize" && ex.method != "ping") {
            bool initialized = false;
            {
                std::lock_guard lock(session.mutex);
                initialized = session.initialized;
            }
            if (!initialized) {
                throw RpcError(INVALID_REQUEST,
                               fmt::format("Invalid Request: {} before initialize; send initialize first, or give "
                                           "_meta {} {} (stateless era)",
                                           ex.method, META_PROTOCOL_VERSION, PROTOCOL_2026_07_28));
            }
        }

        // One snapshot of the catalog for the whole request (replace_catalog may swap it).
        const SnapshotPtr snap = impl.snapshot();
        json result;
        bool cacheable = false;
        const std::string& method = ex.method;
        if (method == "initialize" && !modern) {
            result = impl.initialize(params, session);
            ex.initialized = true;
        } else if (method == "server/discover" && modern) {
            result = impl.discover();
            cacheable = true;
        } else if (method == "ping") {
            result = json::object();
        } else if (method == "skills/list" || method == "skills/get") {
            ex.response = method == "skills/list" ? impl.skills_list(*snap, params, modern, id)
                                                  : impl.skills_get(*snap, params, modern, id);
            return ex;
        } else if (method == "resources/list") {
            result = impl.resources_list(*snap, params);
            cacheable = true;
        } else if (method == "resources/templates/list") {
            result = Impl::templates_list(params);
            cacheable = true;
        } else if (method == "resources/read") {
            ex.response = impl.resources_read(*snap, params, modern, id);
            return ex;
        } else if (method == "resources/directory/read") {
            result = impl.directory_read(*snap, params);
            cacheable = true;
        } else if (method == "tools/list") {
            result = Impl::tools_list(*snap, params);
            cacheable = true;
        } else if (method == "tools/call") {
            result = Impl::tools_call(*snap, params, session);
        } else if (method == "prompts/list") {
            result = impl.prompts_list(*snap, params);
            cacheable = true;
        } else if (method == "prompts/get") {
            result = impl.prompts_get(*snap, params);
        } else {
            // The method as terminal text: a NUL, a control character or an escape sequence in it
            // is written as an escape, never cut or passed on.
            throw RpcError(METHOD_NOT_FOUND, fmt::format("Method not found: {}", terminal_text(method)));
        }
        if (modern) {
            result["resultType"] = "complete";
            if (cacheable) {
                result["ttlMs"] = impl.options.ttl_ms;
                result["cacheScope"] = "public";
            }
        }
        ex.response = response_text(id, "result", dump(result));
        return ex;
    } catch (const RpcError& e) {
        return fail(id, e.code, e.text, e.data);
    } catch (const NotFoundError& e) {
        return fail(id, INVALID_PARAMS, e.what());
    } catch (const std::exception& e) {
        return fail(id, INTERNAL_ERROR, fmt::format("Internal error: {}", e.what()));
    }
}

}  // namespace agentskills::mcp
