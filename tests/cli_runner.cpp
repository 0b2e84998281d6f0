#include "cli_runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

extern char** environ;

namespace agentskills::test {
namespace {

std::string drain(int fd) {
    std::string out;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

}  // namespace

CliRun run_cli(const std::vector<std::string>& args, const std::string& cwd) {
    return run_program(AGENTSKILLS_CLI_PATH, args, cwd);
}

CliRun run_program(const std::string& path, const std::vector<std::string>& args, const std::string& cwd) {
    // stdout and stderr go to temporary files so that neither pipe can fill up and block.
    char out_name[] = "/tmp/agentskills-cli-out-XXXXXX";
    char err_name[] = "/tmp/agentskills-cli-err-XXXXXX";
    const int out_fd = ::mkstemp(out_name);
    const int err_fd = ::mkstemp(err_name);
    if (out_fd < 0 || err_fd < 0) throw std::runtime_error("mkstemp failed");
    // posix_spawn, not fork: a fork copies the page tables of this whole process (large under
    // AddressSanitizer, with its shadow memory and quarantine); glibc's posix_spawn shares the
    // memory until the exec.
    posix_spawn_file_actions_t actions;
    ::posix_spawn_file_actions_init(&actions);
    ::posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
    ::posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
    ::posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    std::vector<std::string> copy = args;
    std::string program = path;
    std::vector<char*> argv;
    argv.push_back(program.data());
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    ::posix_spawn_file_actions_destroy(&actions);
    int status = 0;
    // A program that cannot start (or a working directory that does not exist) reads as the
    // shell's 127, as an exec that failed in a child did.
    if (spawned != 0) {
        status = 127 << 8;
    } else {
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    CliRun run;
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    ::lseek(out_fd, 0, SEEK_SET);
    ::lseek(err_fd, 0, SEEK_SET);
    run.out = drain(out_fd);
    run.err = drain(err_fd);
    ::close(out_fd);
    ::close(err_fd);
    ::unlink(out_name);
    ::unlink(err_name);
    return run;
}

}  // namespace agentskills::test
