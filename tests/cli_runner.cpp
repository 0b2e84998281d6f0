#include "cli_runner.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

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
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        ::dup2(out_fd, 1);
        ::dup2(err_fd, 2);
        if (::chdir(cwd.c_str()) != 0) ::_exit(127);
        std::vector<char*> argv;
        std::string program = path;
        argv.push_back(program.data());
        std::vector<std::string> copy = args;
        for (auto& a : copy) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(program.c_str(), argv.data());
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
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
