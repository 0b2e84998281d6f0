// What a page costs the first time a program touches it (issue 37): maps SIZE_MB of anonymous
// memory (2 MiB-aligned), optionally asks for huge pages or for the pages up front, then writes
// one byte per 4 KiB page and times it. docs/performance.md ("Fewer passes per file, less
// start-up") quotes it for the heap a large discovery builds. Not built by CMake:
//   cc -O2 -o page_touch bench/page_touch.c
//   page_touch SIZE_MB MODE      MODE 0: nothing asked, 1: MADV_HUGEPAGE, 2: MADV_POPULATE_WRITE
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: page_touch SIZE_MB MODE (0 none, 1 MADV_HUGEPAGE, 2 MADV_POPULATE_WRITE)\n");
    return 2;
  }
  const size_t n = (size_t)atol(argv[1]) << 20;
  const int mode = atoi(argv[2]);
  const size_t huge = (size_t)2 << 20;
  char *raw = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) {
    perror("mmap");
    return 1;
  }
  char *p = (char *)(((unsigned long)raw + huge - 1) & ~(huge - 1));
  const double t0 = now_ms();
  if (mode == 1) madvise(p, n, MADV_HUGEPAGE);
  if (mode == 2) madvise(p, n, MADV_POPULATE_WRITE);
  const double t1 = now_ms();
  for (size_t i = 0; i < n; i += 4096) p[i] = 1;
  const double t2 = now_ms();
  memset(p, 2, n);
  const double t3 = now_ms();
  printf("mode %d: madvise %.2f ms, first touch %.2f ms (%.2f us per 4 KiB page), memset after %.2f ms\n", mode,
         t1 - t0, t2 - t1, (t2 - t1) * 1000.0 / (double)(n / 4096), t3 - t2);
  return 0;
}
