//===- hip_check.h - The HIP API test programs' reporting helpers ---------===//
//
// Shared by hip_api_check.cpp and hip_graph_check.cpp: each check prints
// "ok: ..." or "FAIL: ..." and the programs exit with the failure count.
//
//===----------------------------------------------------------------------===//

#ifndef CREST_TEST_HIP_CHECK_H
#define CREST_TEST_HIP_CHECK_H

#include <hip/hip_runtime_api.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

static int failures = 0;

static void check(bool ok, const std::string &what) {
  std::printf("%s: %s\n", ok ? "ok" : "FAIL", what.c_str());
  if (!ok)
    ++failures;
}

static void expect(hipError_t got, hipError_t want, const std::string &what) {
  check(got == want, what + " -> " + hipGetErrorName(got) +
                         (got == want ? "" : std::string(" (expected ") +
                                                 hipGetErrorName(want) + ")"));
}

static std::vector<char> readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

#endif // CREST_TEST_HIP_CHECK_H
