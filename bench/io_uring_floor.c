// What io_uring would save on discovery's system calls (issue 37): the work of
// ../shared/tools/floor.c (every CHILD/SKILL.md of a library opened below the root, read whole,
// closed, on every core), with the opens, reads and closes submitted through io_uring instead of
// one system call each. Per file one linked chain, 32 chains per submission and thread:
//
//   plain        OPENAT (into a registered descriptor slot) -> READ (64 KiB) -> CLOSE
//   fstatat      plain, then one fstatat(2) per file after its chain: the regular-file check and
//                the identity and times that discovery's cache needs, which io_uring cannot
//                give for a registered descriptor
//   statx        STATX -> OPENAT -> READ -> CLOSE, all in the chain
//
// A file over 64 KiB is read in part (none of the generated libraries has one). Not built by
// CMake (it needs liburing-dev, which the project does not use):
//   cc -O2 -pthread -o io_uring_floor bench/io_uring_floor.c -luring
//   io_uring_floor LIBRARY [THREADS] [plain|fstatat|statx]
// The figures and the conclusion are in docs/performance.md ("io_uring against the floor").
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <liburing.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { DEPTH = 32, BUFFER = 1 << 16 };
enum mode { PLAIN, FSTATAT, STATX };

static enum mode mode = PLAIN;
static int root_fd;
static char **names;
static size_t count, next_index;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long total_bytes;
static size_t total_files;

// After the prep call, which clears the flags.
static void tag(struct io_uring_sqe *sqe, unsigned long long what, unsigned char flags) {
  sqe->user_data = what;
  sqe->flags |= flags;
}

static void *worker(void *arg) {
  (void)arg;
  struct io_uring ring;
  if (io_uring_queue_init(DEPTH * 4, &ring, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN) < 0) {
    perror("io_uring_queue_init");
    exit(1);
  }
  int slots[DEPTH];
  for (int i = 0; i < DEPTH; i++) slots[i] = -1;
  if (io_uring_register_files(&ring, slots, DEPTH) < 0) {
    perror("io_uring_register_files");
    exit(1);
  }
  char *buffers = malloc((size_t)DEPTH * BUFFER);
  static __thread char paths[DEPTH][512];
  static __thread struct statx stats[DEPTH];
  unsigned long long bytes = 0;
  size_t files = 0;
  for (;;) {
    pthread_mutex_lock(&lock);
    size_t i = next_index;
    next_index += DEPTH;
    pthread_mutex_unlock(&lock);
    if (i >= count) break;
    const size_t end = i + DEPTH < count ? i + DEPTH : count;
    unsigned n = 0;
    for (; i < end; i++, n++) {
      snprintf(paths[n], sizeof paths[n], "%s/SKILL.md", names[i]);
      struct io_uring_sqe *sqe;
      if (mode == STATX) {
        sqe = io_uring_get_sqe(&ring);
        io_uring_prep_statx(sqe, root_fd, paths[n], AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, &stats[n]);
        tag(sqe, 3, IOSQE_IO_LINK);
      }
      // (A registered descriptor has no close-on-exec flag: O_CLOEXEC is refused.)
      sqe = io_uring_get_sqe(&ring);
      io_uring_prep_openat_direct(sqe, root_fd, paths[n], O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0, n);
      tag(sqe, 0, IOSQE_IO_LINK);
      sqe = io_uring_get_sqe(&ring);
      io_uring_prep_read(sqe, (int)n, buffers + (size_t)n * BUFFER, BUFFER, 0);
      tag(sqe, 1, IOSQE_FIXED_FILE | IOSQE_IO_LINK);
      sqe = io_uring_get_sqe(&ring);
      io_uring_prep_close_direct(sqe, n);
      tag(sqe, 2, 0);
    }
    io_uring_submit_and_wait(&ring, (mode == STATX ? 4 : 3) * n);
    struct io_uring_cqe *cqe;
    unsigned head, seen = 0;
    io_uring_for_each_cqe(&ring, head, cqe) {
      if (cqe->user_data == 1 && cqe->res > 0) {
        bytes += (unsigned long long)cqe->res;
        files++;
      }
      seen++;
    }
    io_uring_cq_advance(&ring, seen);
    if (mode == FSTATAT) {
      for (unsigned k = 0; k < n; k++) {
        struct stat st;
        if (fstatat(root_fd, paths[k], &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) files--;
      }
    }
  }
  pthread_mutex_lock(&lock);
  total_bytes += bytes;
  total_files += files;
  pthread_mutex_unlock(&lock);
  free(buffers);
  io_uring_queue_exit(&ring);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: io_uring_floor LIBRARY [THREADS] [plain|fstatat|statx]\n");
    return 2;
  }
  long threads = argc > 2 ? atol(argv[2]) : sysconf(_SC_NPROCESSORS_ONLN);
  if (threads < 1) threads = sysconf(_SC_NPROCESSORS_ONLN);
  if (threads > 64) threads = 64;
  if (argc > 3) mode = strcmp(argv[3], "statx") == 0 ? STATX : strcmp(argv[3], "fstatat") == 0 ? FSTATAT : PLAIN;
  root_fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (root_fd < 0) {
    perror(argv[1]);
    return 1;
  }
  DIR *d = fdopendir(dup(root_fd));
  size_t cap = 1024;
  names = malloc(cap * sizeof *names);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (count == cap) names = realloc(names, (cap *= 2) * sizeof *names);
    names[count++] = strdup(e->d_name);
  }
  closedir(d);
  pthread_t t[64];
  for (long i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, NULL);
  for (long i = 0; i < threads; i++) pthread_join(t[i], NULL);
  printf("%zu files, %llu bytes\n", total_files, total_bytes);
  return 0;
}
