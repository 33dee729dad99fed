// loom-validate: checks every registered kernel against cuBLAS or an fp64 host reference over a
// sweep of sizes, dtypes, layouts, scalars, padded leading dimensions and misaligned pointers.
//
// Exit status: 0 when no case failed, 1 when one did, 2 on bad input or when nothing can run (no
// GPU, GPU too old); every such error is one line on stderr starting with "loom-validate: ". 3 when
// a case did not finish within --timeout (harness/watchdog.hpp: one line naming it, then _Exit).
// The last line of the report is "validate: N passed, N failed, N skipped".
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <charconv>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/cli.hpp"
#include "harness/fault.hpp"
#include "harness/harness.hpp"
#include "harness/watchdog.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <sys/stat.h>  // --workspace-dir
#include <unistd.h>

#include <cerrno>
#include <tuple>

#include "harness/npy.hpp"  // --save-workspace

namespace {

using namespace loom;
namespace h = loom::harness;

using BadInput = cli::UsageError;  // one line on stderr, exit status 2
using cli::one_line;

enum class RefMode { automatic, cublas, host };
enum class Format { table, csv, json };

struct Record {
  std::string kernel;
  Problem p;
  int misalign = 0;
  std::string reference = "-";  // "host", "cublas" or "-"
  h::ErrorStats st;
  std::string status;  // "pass", "fail", "skip"
  std::string reason;
  std::string path;    // the kernel's path for this case (KernelInfo::path), "" for a kernel with one
  std::string repro;   // a command that reruns this case alone, inputs included
  std::string workspace;  // --save-workspace: the files written, "DIR/NAME.{A,B,C,D,ref}.npy", or why not
};

std::string dtypes_of(KernelInfo const& k) {
  std::string s;
  for (DType t : k.dtypes) s += std::string(s.empty() ? "" : ", ") + to_string(t);
  return s;
}

using cli::int_list;
using cli::name_list;
using cli::real_list;

// ---------------------------------------------------------------------------------------------
// Output

std::string fmt(char const* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string json_string(std::string const& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          o += buf;
        } else {
          o += char(c);
        }
    }
  }
  return o + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  return fmt("%.9g", v);
}

std::string csv_field(std::string const& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

using Tags = std::vector<std::pair<std::string, std::string>>;

// The csv columns of a run's report and of --mode=enumerate's listing, the --tags keys after them.
// A run's rows end with the GPU that ran them (its ordinal in this process, name and PCI bus id), so
// that the rows of reports merged across GPUs (scripts/merge_reports.py) each still say where they
// ran; the json keys are the same.
constexpr char const* kRunColumns =
    "kernel,op,dtype,out_dtype,layout,m,n,k,lda,ldb,ldc,misalign,alpha,beta,reference,"
    "rel_fro,max_abs,max_rel,tolerance,nonfinite,unwritten,over_bound,status,reason,path,repro,workspace,"
    "device,device_name,pci_bus_id";
constexpr char const* kEnumerateColumns =
    "name,kernel,op,dtype,out_dtype,layout,m,n,k,lda,ldb,ldc,misalign,alpha,beta,disposition,reason";

std::string csv_header(bool enumerate, Tags const& tags) {
  std::string h = enumerate ? kEnumerateColumns : kRunColumns;
  for (auto const& t : tags) h.append(",").append(t.first);
  return h;
}

// The fields a tag may not be named after: the csv columns and json keys of either report.
std::vector<std::string> report_fields() {
  std::vector<std::string> f;
  for (char const* cols : {kRunColumns, kEnumerateColumns})
    for (auto const& c : h::split_list(cols))
      if (std::find(f.begin(), f.end(), c) == f.end()) f.push_back(c);
  return f;
}

std::string csv_tags(Tags const& tags) {
  std::string s;
  for (auto const& t : tags) s.append(",").append(csv_field(t.second));
  return s;
}

std::string json_tags(Tags const& tags) {
  std::string s;
  for (auto const& t : tags) s.append(", ").append(json_string(t.first)).append(": ").append(json_string(t.second));
  return s;
}

class Reporter {
 public:
  // write_header: false when --append continues a csv file that has the header already.
  Reporter(std::ostream& out, Format f, bool quiet, Tags tags, bool write_header)
      : out_(out), f_(f), quiet_(quiet), tags_(std::move(tags)), write_header_(write_header) {}

  // shard: --shard's I/N, in the json header (scripts/merge_reports.py checks that the shards it
  // merges cover the sweep).
  void begin(h::DeviceInfo const& dev, std::string const& shard) {
    dev_ = dev;
    if (f_ == Format::table) {
      if (!quiet_) {
        out_ << h::describe(dev) << "\n";
        if (!tags_.empty()) {
          std::string line;
          for (auto const& t : tags_) line += (line.empty() ? "tags: " : ", ") + t.first + "=" + t.second;
          out_ << line << "\n";
        }
        header();
      }
    } else if (f_ == Format::csv) {
      if (write_header_) out_ << csv_header(false, tags_) << "\n";
    } else {
      out_ << "{\n  \"device\": {\"name\": " << json_string(dev.name) << ", \"cc\": " << dev.cc
           << ", \"sm_count\": " << dev.sm_count << ", \"driver_version\": " << dev.driver_version
           << ", \"runtime_version\": " << dev.runtime_version
           << ", \"cublas_version\": " << dev.cublas_version << ", \"ordinal\": " << dev.ordinal
           << ", \"pci_bus_id\": " << json_string(dev.pci_bus_id) << ", \"uuid\": " << json_string(dev.uuid)
           << "},\n  \"shard\": " << json_string(shard) << ",\n  \"cases\": [";
    }
    out_.flush();
  }

  void record(Record const& r) {
    (r.status == "pass" ? passed_ : r.status == "fail" ? failed_ : skipped_)++;
    if (quiet_ && r.status != "fail") return;
    Problem const& p = r.p;
    bool const ran = r.status != "skip" && r.reference != "-";
    if (f_ == Format::table) {
      if (quiet_ && !header_done_) header();
      char lds[64];
      std::snprintf(lds, sizeof lds, "%lld/%lld/%lld", (long long)p.lda, (long long)p.ldb, (long long)p.ldc);
      char line[512];
      std::snprintf(line, sizeof line, "%-8s %-8s %-6s %6lld %6lld %6lld %17s %3d %6g %6g %-6s %9s %9s %s",
                    r.kernel.c_str(),
                    (input_types(p) +
                     (p.out_dtype != p.dtype ? std::string(">") + to_string(p.out_dtype) : std::string()))
                        .c_str(),
                    layout_string(p).c_str(), (long long)p.m,
                    (long long)p.n, (long long)p.k, lds, r.misalign, p.alpha, p.beta, r.reference.c_str(),
                    ran ? fmt("%.2e", r.st.rel_fro).c_str() : "-",
                    ran ? fmt("%.2e", r.st.max_abs).c_str() : "-", r.status.c_str());
      out_ << line;
      if (!r.path.empty()) out_ << " [" << r.path << "]";
      if (!r.reason.empty()) out_ << ": " << r.reason;
      out_ << "\n";
      if (r.status == "fail") out_ << "  repro: " << r.repro << "\n";
      if (!r.workspace.empty()) out_ << "  workspace: " << r.workspace << "\n";
    } else if (f_ == Format::csv) {
      out_ << csv_field(r.kernel) << ',' << to_string(p.op) << ',' << input_types(p) << ','
           << to_string(p.out_dtype) << ',' << layout_string(p) << ',' << p.m << ',' << p.n << ','
           << p.k << ',' << p.lda << ',' << p.ldb << ',' << p.ldc << ',' << r.misalign << ','
           << fmt("%.17g", p.alpha) << ',' << fmt("%.17g", p.beta) << ',' << r.reference << ','
           << (ran ? fmt("%.6e", r.st.rel_fro) : "") << ',' << (ran ? fmt("%.6e", r.st.max_abs) : "")
           << ',' << (ran ? fmt("%.6e", r.st.max_rel) : "") << ','
           << (ran ? fmt("%.3e", r.st.tol) : "") << ',' << r.st.nonfinite << ',' << r.st.unwritten
           << ',' << r.st.over_bound << ',' << r.status << ',' << csv_field(r.reason) << ','
           << csv_field(r.path) << ',' << csv_field(r.repro) << ',' << csv_field(r.workspace) << ','
           << dev_.ordinal << ',' << csv_field(dev_.name) << ',' << csv_field(dev_.pci_bus_id) << csv_tags(tags_)
           << "\n";
    } else {
      out_ << (rows_ ? ",\n" : "\n") << "    {\"name\": " << json_string(case_name(r.kernel, p))
           << ", \"kernel\": " << json_string(r.kernel) << ", \"op\": \"" << to_string(p.op)
           << "\", \"dtype\": \"" << input_types(p) << "\", \"out_dtype\": \"" << to_string(p.out_dtype)
           << "\", \"layout\": \"" << layout_string(p) << "\", \"m\": " << p.m << ", \"n\": " << p.n
           << ", \"k\": " << p.k << ", \"lda\": " << p.lda << ", \"ldb\": " << p.ldb << ", \"ldc\": " << p.ldc
           << ", \"misalign\": " << r.misalign << ", \"alpha\": " << json_number(p.alpha)
           << ", \"beta\": " << json_number(p.beta) << ", \"reference\": " << json_string(r.reference)
           << ", \"rel_fro\": " << (ran ? json_number(r.st.rel_fro) : "null")
           << ", \"max_abs\": " << (ran ? json_number(r.st.max_abs) : "null")
           << ", \"max_rel\": " << (ran ? json_number(r.st.max_rel) : "null")
           << ", \"tolerance\": " << (ran ? json_number(r.st.tol) : "null")
           << ", \"nonfinite\": " << r.st.nonfinite << ", \"unwritten\": " << r.st.unwritten
           << ", \"over_bound\": " << r.st.over_bound << ", \"status\": " << json_string(r.status)
           << ", \"reason\": " << json_string(r.reason) << ", \"path\": " << json_string(r.path)
           << ", \"repro\": " << json_string(r.repro) << ", \"workspace\": " << json_string(r.workspace)
           << ", \"device\": " << dev_.ordinal << ", \"device_name\": " << json_string(dev_.name)
           << ", \"pci_bus_id\": " << json_string(dev_.pci_bus_id) << json_tags(tags_) << "}";
    }
    ++rows_;
    out_.flush();
  }

  // Prints the summary where it belongs: the last line of a table; for csv and json the summary
  // goes to `summary` (stderr or stdout) so that the data stay parseable.
  void end(std::ostream& summary, std::string const& note) {
    std::string const line = "validate: " + std::to_string(passed_) + " passed, " +
                             std::to_string(failed_) + " failed, " + std::to_string(skipped_) + " skipped";
    if (f_ == Format::json) {
      out_ << (rows_ ? "\n  " : "") << "],\n  \"passed\": " << passed_ << ", \"failed\": " << failed_
           << ", \"skipped\": " << skipped_ << "\n}\n";
    }
    if (f_ == Format::table) {
      if (!note.empty() && !quiet_) out_ << note << "\n";
      out_ << line << "\n";
      out_.flush();
      if (&summary != &out_) summary << line << "\n";
    } else {
      out_.flush();
      summary << line << "\n";
    }
    summary.flush();
  }

  int failed() const { return failed_; }

 private:
  void header() {
    char line[256];
    std::snprintf(line, sizeof line, "%-8s %-8s %-6s %6s %6s %6s %17s %3s %6s %6s %-6s %9s %9s %s", "kernel",
                  "dtype", "layout", "M", "N", "K", "lda/ldb/ldc", "mis", "alpha", "beta", "ref",
                  "rel_fro", "max_abs", "status");
    out_ << line << "\n";
    header_done_ = true;
  }

  std::ostream& out_;
  Format f_;
  bool quiet_;
  Tags tags_;
  bool write_header_;
  h::DeviceInfo dev_;  // begin()'s: every row names it
  bool header_done_ = false;
  int passed_ = 0, failed_ = 0, skipped_ = 0;
  std::size_t rows_ = 0;
};

// ---------------------------------------------------------------------------------------------
// One case

std::string pick_reference(RefMode ref, Problem const& p) {
  std::string const no_cublas = h::why_no_cublas(p);
  if (ref == RefMode::host) return "host";
  if (ref == RefMode::cublas) return "cublas";
  double const work = p.op == OpKind::add ? double(p.m) * double(p.n) : double(p.m) * double(p.n) * double(p.k);
  double const small = p.op == OpKind::add ? double(1 << 22) : double(1 << 24);
  return (work <= small || !no_cublas.empty()) ? "host" : "cublas";
}

// Why the case does not fit in `free` bytes of device memory ("" if it does): its operands
// (h::make_buffers) and, against cuBLAS, the reference's own copy of D (and for 8-bit inputs its
// 16-bit copies of A and B).
std::string why_no_memory(Problem const& p, int misalign, std::string const& reference, std::uint64_t free) {
  std::uint64_t need = h::device_bytes(p, misalign);
  if (reference == "cublas") {
    std::uint64_t const ref_d = h::matrix_bytes(p.out_dtype, p.m, p.n, p.c, p.ldc, misalign);
    std::uint64_t const wide = h::reference_cublas_bytes(p);
    need = need > ~std::uint64_t(0) - wide ? ~std::uint64_t(0) : need + wide;
    need = need > ~std::uint64_t(0) - ref_d ? ~std::uint64_t(0) : need + ref_d;
  }
  return h::why_no_memory(need, free);
}

// --save-workspace: A, B, C (gemm), D (the kernel's output) and the reference of a compared case
// as .npy files DIR/NAME.{A,B,C,D,ref}.npy (harness/npy.hpp: float64, the logical matrices,
// numpy.load(f)[i, j] is element (i, j)), NAME made of the case's fields (workspace_name). Returns
// the files as "DIR/NAME.{A,B,C,D,ref}.npy" for the report, or "not saved: why".
std::string workspace_name(Record const& r) {
  Problem const& p = r.p;
  std::string n = r.kernel + "_" + input_types(p) +
                  (p.out_dtype != p.dtype ? std::string("-to-") + to_string(p.out_dtype) : std::string()) + "_" +
                  layout_string(p) + "_" + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" +
                  std::to_string(p.k) + "_ld" + std::to_string(p.lda) + "-" + std::to_string(p.ldb) + "-" +
                  std::to_string(p.ldc) + "_mis" + std::to_string(r.misalign) + "_alpha" + fmt("%g", p.alpha) +
                  "_beta" + fmt("%g", p.beta);
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-' && ch != '_') ch = '_';
  return n;
}

// Why --workspace-dir cannot hold the files ("" if it can): an existing writable directory, or a
// new one in an existing writable directory (created when the run starts).
std::string why_no_workspace_dir(std::string const& dir) {
  if (dir.empty()) return "empty";
  struct stat st;
  if (stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return "not a directory";
    return access(dir.c_str(), W_OK | X_OK) == 0 ? "" : "not writable";
  }
  std::string parent = dir;
  while (parent.size() > 1 && parent.back() == '/') parent.pop_back();
  std::size_t const slash = parent.rfind('/');
  parent = slash == std::string::npos ? "." : slash == 0 ? "/" : parent.substr(0, slash);
  if (stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "its parent \"" + parent + "\" is not a directory";
  return access(parent.c_str(), W_OK | X_OK) == 0 ? "" : "cannot create it in \"" + parent + "\" (not writable)";
}

std::string save_case_workspace(std::string const& dir, Record const& r, h::CaseBuffers const& buf,
                                std::vector<double> const& out, std::vector<double> const& ref) {
  std::string const base = (dir.empty() || dir.back() == '/' ? dir : dir + "/") + workspace_name(r);
  std::string parts;
  auto save = [&](char const* part, h::DeviceMatrix const* m, std::vector<double> const* v) {
    std::vector<double> tmp;
    if (m) {
      if (m->empty()) return std::string();
      tmp = h::to_host(*m);
      v = &tmp;
    }
    std::int64_t const rows = m ? m->rows() : r.p.m, cols = m ? m->cols() : r.p.n;
    if (std::string const why = h::write_npy(base + "." + part + ".npy", rows, cols, *v); !why.empty()) return why;
    parts += (parts.empty() ? "" : ",") + std::string(part);
    return std::string();
  };
  for (auto [part, m, v] : {std::tuple{"A", &buf.a, (std::vector<double> const*)nullptr},
                            std::tuple{"B", &buf.b, (std::vector<double> const*)nullptr},
                            std::tuple{"C", &buf.c, (std::vector<double> const*)nullptr},
                            // block scales: A's M x kb, B's block_scale_ld(K) x ceil(N/128) (NaN padding)
                            std::tuple{"scale_a", &buf.block_a, (std::vector<double> const*)nullptr},
                            std::tuple{"scale_b", &buf.block_b, (std::vector<double> const*)nullptr},
                            std::tuple{"D", (h::DeviceMatrix const*)nullptr, &out},
                            std::tuple{"ref", (h::DeviceMatrix const*)nullptr, &ref}})
    if (std::string const why = save(part, m, v); !why.empty()) return "not saved: " + one_line(why);
  return base + ".{" + parts + "}.npy";
}

struct Runner {
  h::DeviceInfo dev;
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  RefMode ref = RefMode::automatic;
  std::uint64_t seed = 0;
  h::Watchdog* watchdog = nullptr;
  double timeout = 0;  // --timeout, seconds; 0: none
  h::Fault fault = h::Fault::none;  // --inject-fault: launched in place of the kernel (a testing aid)
  std::string save_workspace = "none";  // --save-workspace: none, incorrect or all
  std::string workspace_dir;            // --workspace-dir

  // not_run: the cases after this one, named by the watchdog's line should this one hang.
  Record run(h::Case const& c, std::size_t not_run) {
    Record r;
    r.kernel = c.kernel->name;
    r.p = c.problem;
    r.misalign = c.misalign;
    r.repro = h::repro_command(r.kernel, c.problem, c.misalign, seed);
    Problem const& p = r.p;
    std::string const why = why_unsupported(*c.kernel, p, dev.cc);
    if (!why.empty()) {
      r.status = "skip";
      r.reason = why;
      return r;
    }
    r.reference = pick_reference(ref, p);
    // The watchdog times the case's work on the GPU: buffers, inputs, the cuBLAS reference, the
    // kernel and the copies back. The fp64 host reference and the comparison come after it: on a
    // large case they take minutes, and they cannot hang on the GPU.
    h::WatchdogArm armed(*watchdog, "case " + case_name(r.kernel, p), timeout,
                         ", " + std::to_string(not_run) + " cases not run; repro: " + r.repro);
    try {
      // Before anything of the case is allocated: one too large for the free memory is a skip with
      // the reason, not a cudaMalloc failure halfway through its buffers. The previous case's
      // buffers are gone by now.
      if (std::string const why = why_no_memory(p, c.misalign, r.reference, h::free_device_bytes()); !why.empty()) {
        r.status = "skip";
        r.reason = why;
        r.reference = "-";
        return r;
      }
      std::uint64_t const s = h::case_seed(seed, p, c.misalign);
      h::CaseBuffers buf = h::make_buffers(p, c.misalign, s);
      // Padding and slack stay NaN: a kernel that reads them poisons its output.
      // fill_random(m, seed) writes random_values(...) (the GPU test HarnessGpu.FillPoisonToHost
      // checks that they match the device); the fp64 reference takes those host values, and only it:
      // a cuBLAS-referenced case draws its elements straight into the upload's image.
      bool const host_ref = r.reference == "host";
      auto fill = [&](h::DeviceMatrix& m, std::uint64_t sd, std::vector<double>* keep) {
        h::poison(m);
        if (keep && host_ref) {
          *keep = h::random_values(m.dtype(), m.rows() * m.cols(), sd);
          h::from_host(m, *keep);
        } else {
          h::fill_random(m, sd);
        }
      };
      std::vector<double> A, B, C;
      fill(buf.a, s * 4 + 0, &A);
      fill(buf.b, s * 4 + 1, &B);
      if (!buf.c.empty()) fill(buf.c, s * 4 + 2, &C);
      h::poison(buf.d);
      Operands const ops = buf.operands();
      r.path = kernel_path(*c.kernel, p, ops);

      h::DeviceMatrix ref_d;
      if (r.reference == "cublas") {
        ref_d = h::DeviceMatrix(p.out_dtype, p.m, p.n, p.c, p.ldc, c.misalign);
        h::poison(ref_d);
        Operands rops = ops;
        rops.d = ref_d.data();
        h::reference_cublas(p, rops, handle, stream);
        LOOM_CUDA(cudaGetLastError());
      }
      LOOM_CUDA(cudaDeviceSynchronize());

      {
        h::NvtxRange range(case_name(r.kernel, p));
        std::string const err =
            fault != h::Fault::none ? h::launch_fault(fault, stream) : run_kernel(*c.kernel, p, ops, stream, dev.cc);
        if (!err.empty()) {
          r.status = "fail";
          r.reason = one_line(err);
          return r;
        }
        LOOM_CUDA(cudaGetLastError());
        LOOM_CUDA(cudaStreamSynchronize(stream));
      }

      std::vector<double> const out = h::to_host(buf.d);
      std::vector<double> ref;
      if (r.reference == "cublas") {
        ref = h::to_host(ref_d);
        armed.disarm();
      } else {
        armed.disarm();
        ref = h::reference_host(p, A, B, C, buf.host_scales());
      }
      r.st = h::compare(out, ref, p.out_dtype, p, h::typical_rms(p, buf.host_scales()));
      r.status = r.st.pass ? "pass" : "fail";
      r.reason = r.st.why;
      if (save_workspace == "all" || (save_workspace == "incorrect" && !r.st.pass))
        r.workspace = save_case_workspace(workspace_dir, r, buf, out, ref);
    } catch (std::exception const& e) {
      r.status = "fail";
      r.reason = one_line(e.what());
    }
    return r;
  }
};

// ---------------------------------------------------------------------------------------------
// --junit-output

std::string xml_escape(std::string const& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') out += ' ';
        else out += c;
    }
  }
  return out;
}

// One testsuite, one testcase per case (its name: the case, its leading dimensions, misalignment,
// alpha and beta, which make it unique), failures and skips with their reasons; a run cut short by
// a lost context is one more failed testcase that says so.
bool write_junit(std::string const& path, std::vector<Record> const& records, double secs, std::string const& aborted,
                 Tags const& tags) {
  std::ofstream f(path);
  if (!f) return false;
  std::size_t failures = aborted.empty() ? 0 : 1, skipped = 0;
  for (Record const& r : records) {
    if (r.status == "fail") ++failures;
    if (r.status == "skip") ++skipped;
  }
  std::size_t const tests = records.size() + (aborted.empty() ? 0 : 1);
  f << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites name=\"loom-validate\" tests=\"" << tests << "\" failures=\"" << failures << "\" skipped=\""
    << skipped << "\" time=\"" << secs << "\">\n"
    << "  <testsuite name=\"loom-validate\" tests=\"" << tests << "\" failures=\"" << failures << "\" skipped=\""
    << skipped << "\" time=\"" << secs << "\">\n";
  if (!tags.empty()) {
    f << "    <properties>\n";
    for (auto const& t : tags)
      f << "      <property name=\"" << xml_escape(t.first) << "\" value=\"" << xml_escape(t.second) << "\"/>\n";
    f << "    </properties>\n";
  }
  for (Record const& r : records) {
    Problem const& p = r.p;
    char extra[160];
    std::snprintf(extra, sizeof extra, "/ld=%lld,%lld,%lld/mis=%d/alpha=%g/beta=%g", (long long)p.lda, (long long)p.ldb,
                  (long long)p.ldc, r.misalign, p.alpha, p.beta);
    std::string name = case_name(r.kernel, p) + extra;
    if (p.out_dtype != p.dtype) name += std::string("/out=") + to_string(p.out_dtype);
    f << "    <testcase classname=\"loom-validate." << xml_escape(r.kernel) << "\" name=\"" << xml_escape(name) << "\"";
    if (r.status == "pass") {
      f << "/>\n";
    } else {
      f << ">\n      <" << (r.status == "skip" ? "skipped" : "failure") << " message=\"" << xml_escape(r.reason)
        << "\"/>\n    </testcase>\n";
    }
  }
  if (!aborted.empty())
    f << "    <testcase classname=\"loom-validate\" name=\"run\">\n      <failure message=\"" << xml_escape(aborted)
      << "\"/>\n    </testcase>\n";
  f << "  </testsuite>\n</testsuites>\n";
  return bool(f);
}

// ---------------------------------------------------------------------------------------------
// --mode=enumerate: the cases a command would run, without a GPU

std::string sfmt(char const* f, ...) __attribute__((format(printf, 1, 2)));
std::string sfmt(char const* f, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// Writes the listing to `out` and its summary line where a run puts its own (Reporter::end).
int enumerate(std::vector<h::Case> const& cases, std::optional<int> cc_given, int device, Format format, RefMode ref,
              std::ostream& out, std::ostream& summary, Tags const& tags, bool write_header) {
  int cc = 90;
  std::string where = "assumed (no GPU; --compute-capability sets it)";
  // Planning for this machine's GPU, a case must also fit in its free memory, as in a run; for
  // another GPU (--compute-capability) its memory is unknown.
  std::optional<std::uint64_t> free;
  if (cc_given) {
    cc = *cc_given;
    where = "from --compute-capability";
  } else {
    try {
      cc = h::query_device(device).cc;
      where = "GPU " + std::to_string(device) + "'s";
      LOOM_CUDA(cudaSetDevice(device));
      free = h::free_device_bytes();
    } catch (h::NoGpu const&) {
    }
  }
  if (format == Format::csv) {
    if (write_header) out << csv_header(true, tags) << "\n";
  } else if (format == Format::json) {
    out << "{\n  \"compute_capability\": " << cc << ",\n  \"cases\": [";
  } else {
    out << sfmt("compute capability %d.%d, %s\n", cc / 10, cc % 10, where.c_str());
    if (!tags.empty()) {
      std::string line;
      for (auto const& t : tags) line += (line.empty() ? "tags: " : ", ") + t.first + "=" + t.second;
      out << line << "\n";
    }
    out << sfmt("%-44s %-7s %-13s %s\n", "case", "mis", "disposition", "reason");
  }
  std::size_t runs = 0, not_supported = 0;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    h::Case const& c = cases[i];
    Problem const& p = c.problem;
    std::string why = why_unsupported(*c.kernel, p, cc);
    if (why.empty() && free) why = why_no_memory(p, c.misalign, pick_reference(ref, p), *free);
    (why.empty() ? runs : not_supported)++;
    std::string const disp = why.empty() ? "would_run" : "not_supported";
    std::string name = case_name(c.kernel->name, p);
    if (p.out_dtype != p.dtype) name += std::string("/out=") + to_string(p.out_dtype);
    char ab[96];
    std::snprintf(ab, sizeof ab, "/alpha=%g/beta=%g/ld=%lld,%lld,%lld", p.alpha, p.beta, (long long)p.lda,
                  (long long)p.ldb, (long long)p.ldc);
    if (format == Format::csv) {
      out << csv_field(name) << ',' << csv_field(c.kernel->name) << ','
          << sfmt("%s,%s,%s,%s,%lld,%lld,%lld,%lld,%lld,%lld,%d,%.17g,%.17g,", to_string(p.op), input_types(p).c_str(),
                  to_string(p.out_dtype), layout_string(p).c_str(), (long long)p.m, (long long)p.n, (long long)p.k,
                  (long long)p.lda, (long long)p.ldb, (long long)p.ldc, c.misalign, p.alpha, p.beta)
          << disp << ',' << csv_field(why) << csv_tags(tags) << "\n";
    } else if (format == Format::json) {
      out << (i ? "," : "") << "\n    {\"name\": " << json_string(name) << ", \"kernel\": " << json_string(c.kernel->name)
          << sfmt(", \"dtype\": \"%s\", \"out_dtype\": \"%s\", \"layout\": \"%s\", \"m\": %lld, \"n\": %lld, \"k\": %lld, "
                  "\"lda\": %lld, \"ldb\": %lld, \"ldc\": %lld, \"misalign\": %d, ",
                  input_types(p).c_str(), to_string(p.out_dtype), layout_string(p).c_str(), (long long)p.m, (long long)p.n,
                  (long long)p.k, (long long)p.lda, (long long)p.ldb, (long long)p.ldc, c.misalign)
          << "\"alpha\": " << json_number(p.alpha) << ", \"beta\": " << json_number(p.beta) << ", \"disposition\": \""
          << disp << "\", \"reason\": " << json_string(why) << json_tags(tags) << "}";
    } else {
      out << sfmt("%-44s %-7d %-13s ", (name + ab).c_str(), c.misalign, disp.c_str()) << why << "\n";
    }
  }
  if (format == Format::json) out << (cases.empty() ? "" : "\n  ") << "]\n}\n";
  std::string const line = "enumerate: " + std::to_string(cases.size()) + " cases, " + std::to_string(runs) +
                           " would run, " + std::to_string(not_supported) + " not_supported";
  if (format == Format::table) out << line << "\n";
  out.flush();
  if (format != Format::table || &summary != &out) summary << line << "\n";
  summary.flush();
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The command line, checked whole before any GPU is looked for

// loom-validate's own options as CLI11 fills them in; the ones loom-bench shares are cli::Options'.
struct OwnOptions {
  std::string op, ld_pad, misalign, seed;
  std::string reference = "auto", format = "table", output, junit;
  std::string save_workspace = "none", workspace_dir = "loom-workspace";
  bool quiet = false, append = false;
};

void add_own_options(CLI::App& app, OwnOptions& own) {
  app.add_option("--op", own.op, "add or gemm (default: every op that has kernels)");
  app.add_option("--ld-pad", own.ld_pad, "Elements added to every leading dimension");
  app.add_option("--misalign", own.misalign, "Element offset of every base pointer");
  app.add_option("--seed", own.seed, "Random seed, an integer in [0, 2^64) (default: 20240601; each case derives its own)");
  app.add_option("--reference", own.reference,
                 "auto (host fp64 for small cases and dtypes cuBLAS lacks, else cuBLAS), cublas, host");
  app.add_option("--format", own.format,
                 "table, csv or json (a run's csv and json rows end with the GPU that ran them: device, device_name, "
                 "pci_bus_id)");
  app.add_option("--output", own.output, "Write the report to FILE (the summary line still goes to stdout)");
  app.add_option("--save-workspace", own.save_workspace,
                 "none (default), incorrect or all: write A, B, C, D (the kernel's output) and the reference of each "
                 "failing (incorrect) or compared (all) case to --workspace-dir as .npy files, named in the report");
  app.add_option("--workspace-dir", own.workspace_dir,
                 "Directory of --save-workspace's files (default: loom-workspace; created if missing, its parent "
                 "must exist)");
  app.add_flag("--append", own.append,
               "Append to the --output file instead of overwriting it (csv: the header is not repeated, and must "
               "match; not with --format=json)")
      ->disable_flag_override();
  app.add_option("--junit-output", own.junit,
                 "Also write the results as JUnit XML to FILE (one testcase per case: failures and skips "
                 "with their reasons), for CI systems");
  app.add_flag("--quiet", own.quiet, "Report only failures and the summary")->disable_flag_override();
}

// Parses the command line and checks the shared options' values. Returns the exit status when the
// command is done (--help, --list), nothing when the run goes on.
std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv, cli::Options& opts) {
  cli::check_argv(argc, argv, {"--list", "--quiet", "--append"});
  try {
    app.parse(argc, argv);
  } catch (CLI::ParseError const& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    throw BadInput(one_line(e.what()));
  }
  if (opts.run.list) {
    cli::alone(app, "--list");  // it prints the same text whatever else is given
    std::fputs(h::kernel_list().c_str(), stdout);
    return 0;
  }
  // Every shared option's value, checked before anything else (no GPU looked for yet).
  opts.parse(cli::Tool::validate, report_fields());
  return std::nullopt;
}

// What the checked command line asks for, every value typed.
struct Settings {
  // Kernels named one by one must each take every dtype and op asked for; a glob or
  // --ignore-kernels just picks among the registered ones.
  std::vector<KernelInfo const*> sel;  // registry order
  bool explicit_kernels = false;
  // --dtypes, split: the 8-bit inputs go to a sweep of their own (h::default_validate_sweep_8bit),
  // the others to the default one.
  std::vector<h::InputTypes> dtypes, wide_dtypes, narrow_dtypes;
  std::vector<DType> out_dtypes;  // --out-dtypes, empty where not given
  std::vector<std::string> layouts;
  std::vector<std::int64_t> ms, ns, ks, pads, mis;
  std::vector<double> alphas, betas;  // each empty where not given: the sweep's own
  RefMode ref = RefMode::automatic;
  Format format = Format::table;
  std::uint64_t seed = 20240601;
};

// --op, --sweep and --k against the kernels --kernels and --ignore-kernels selected.
void select_kernels(CLI::App const& app, cli::Options const& opts, OwnOptions& own, Settings& s) {
  s.explicit_kernels = opts.kernels.one_by_one;
  s.sel = opts.kernels.selected;
  // A named sweep is gemm's (validate/README.md): it picks the gemm kernels, sets N and K itself.
  bool const named_sweep = opts.sweep.sweep != nullptr;
  if (named_sweep) {
    if (app.count("--op") && own.op != "gemm")
      throw BadInput("--sweep=" + opts.sweep.text + " is a gemm sweep; --op=" + own.op + " does not go with it");
    if (!app.count("--op")) own.op = "gemm";
  }
  if (app.count("--op") || named_sweep) {
    OpKind op;
    if (!parse_op(own.op, &op)) throw BadInput("--op: unknown op \"" + own.op + "\" (add or gemm)");
    if (s.explicit_kernels) {
      for (auto* k : s.sel)
        if (k->op != op)
          throw BadInput("kernel " + k->name + " computes " + to_string(k->op) + ", not " + to_string(op));
    } else {
      std::erase_if(s.sel, [&](KernelInfo const* k) { return k->op != op; });
      if (s.sel.empty()) throw BadInput(std::string("no registered kernel computes ") + to_string(op));
    }
  }
  // K is gemm's: with no gemm kernel left, --k would be ignored.
  if (opts.problem.k &&
      std::none_of(s.sel.begin(), s.sel.end(), [](KernelInfo const* k) { return k->op == OpKind::gemm; }))
    throw BadInput("--k: K is gemm's, and no selected kernel computes gemm");
}

// --dtypes against the selected kernels: each must take some of them, and a kernel named one by
// one every one.
void check_dtypes(cli::Options const& opts, Settings& s) {
  s.out_dtypes = opts.problem.out_dtypes.value_or(std::vector<DType>{});
  s.dtypes = opts.problem.dtypes.value_or(std::vector<h::InputTypes>{});
  for (h::InputTypes t : s.dtypes) {
    bool any = false;
    for (auto* k : s.sel) {
      auto has = [&](DType d) { return std::find(k->dtypes.begin(), k->dtypes.end(), d) != k->dtypes.end(); };
      bool const takes = has(t.a) && has(t.b);
      if (s.explicit_kernels && !takes)
        throw BadInput("kernel " + k->name + " does not support dtype " + t.name() + " (it supports " + dtypes_of(*k) +
                       ")");
      any = any || takes;
    }
    if (!any) throw BadInput("no selected kernel supports dtype " + t.name());
  }
  for (h::InputTypes t : s.dtypes) (is_8bit(t.a) ? s.narrow_dtypes : s.wide_dtypes).push_back(t);
}

// The sweep's lists: the shared ones (already parsed), --ld-pad and --misalign with their bounds.
void check_lists(CLI::App const& app, cli::Options const& opts, OwnOptions const& own, Settings& s) {
  s.layouts = opts.problem.layouts.value_or(std::vector<std::string>{});
  s.ms = opts.problem.m.value_or(std::vector<std::int64_t>{});
  s.ns = opts.problem.n.value_or(std::vector<std::int64_t>{});
  s.ks = opts.problem.k.value_or(std::vector<std::int64_t>{});
  if (app.count("--ld-pad")) s.pads = int_list("--ld-pad", own.ld_pad, 0, "padding must be non-negative");
  if (app.count("--misalign")) s.mis = int_list("--misalign", own.misalign, 0, "misalignment must be non-negative");
  for (auto p : s.pads)
    if (p > (1 << 20)) throw BadInput("--ld-pad: padding above 1048576 elements, found " + std::to_string(p));
  for (auto x : s.mis)
    if (x > 4096) throw BadInput("--misalign: offsets above 4096 elements, found " + std::to_string(x));
  s.alphas = opts.problem.alpha.value_or(std::vector<double>{});
  s.betas = opts.problem.beta.value_or(std::vector<double>{});
}

// --reference, --format, --seed, and the files a run writes: each can be written, no two are one
// file, and --append can continue the --output file.
void check_run_values(CLI::App const& app, OwnOptions const& own, Settings& s) {
  std::string const& ref = own.reference;
  if (ref == "auto") s.ref = RefMode::automatic;
  else if (ref == "cublas") s.ref = RefMode::cublas;
  else if (ref == "host") s.ref = RefMode::host;
  else throw BadInput("unknown --reference \"" + ref + "\" (auto, cublas, host)");
  std::string const& format = own.format;
  if (format == "table") s.format = Format::table;
  else if (format == "csv") s.format = Format::csv;
  else if (format == "json") s.format = Format::json;
  else throw BadInput("unknown --format \"" + format + "\" (table, csv, json)");
  if (app.count("--seed")) s.seed = cli::unsigned_value("--seed", own.seed, 0, ~std::uint64_t(0));
  if (!own.junit.empty()) {
    std::string const why = h::why_not_writable(own.junit);
    if (!why.empty()) throw BadInput("cannot write --junit-output file \"" + own.junit + "\": " + why);
  }
  if (!own.output.empty()) {
    std::string const why = h::why_not_writable(own.output);
    if (!why.empty()) throw BadInput("cannot write --output file \"" + own.output + "\": " + why);
  }
  // Both writes would go to one file, the second over the first.
  if (!own.output.empty() && !own.junit.empty()) {
    std::error_code e1, e2;
    auto const a = std::filesystem::weakly_canonical(own.output, e1),
               b = std::filesystem::weakly_canonical(own.junit, e2);
    if (own.output == own.junit || (!e1 && !e2 && a == b))
      throw BadInput("--output and --junit-output name the same file \"" + own.junit + "\"; give two");
  }
  std::string const& save = own.save_workspace;
  if (save != "none" && save != "incorrect" && save != "all")
    throw BadInput("--save-workspace is none, incorrect or all, found \"" + save + "\"");
  if (app.count("--workspace-dir") && save == "none")
    throw BadInput("--workspace-dir goes with --save-workspace=incorrect or all");
  if (save != "none") {
    if (std::string const why = why_no_workspace_dir(own.workspace_dir); !why.empty())
      throw BadInput("--workspace-dir \"" + own.workspace_dir + "\": " + why);
  }
  if (own.append && own.output.empty()) throw BadInput("--append appends to the --output file; name one");
  // Two JSON documents in one file are not JSON; csv rows (one header) and tables stack.
  if (own.append && s.format == Format::json)
    throw BadInput("--append does not go with --format=json (a second document would make the file invalid JSON); "
                   "use --format=csv");
}

// ---------------------------------------------------------------------------------------------
// The sweep

// The sweep's specs, and in *total how many cases they hold: counted before any is built, so that
// a huge sweep is refused, not allocated.
std::vector<h::SweepSpec> build_specs(cli::Options const& opts, Settings const& s, std::uint64_t* total) {
  std::vector<h::SweepSpec> specs;
  *total = 0;
  // The options every sweep takes alike, then the count.
  auto add_spec = [&](h::SweepSpec spec) {
    spec.out_dtypes = s.out_dtypes;
    // --scale: a case per mode of each 8-bit input named without -block (tensor alone by default).
    if (opts.problem.scales) spec.scales = *opts.problem.scales;
    if (!s.alphas.empty() || !s.betas.empty()) spec.ab_pairs.clear();
    if (!s.alphas.empty()) spec.alpha = s.alphas;
    if (!s.betas.empty()) spec.beta = s.betas;
    if (!s.pads.empty()) spec.ld_pad = s.pads;
    if (!s.mis.empty()) spec.misalign.assign(s.mis.begin(), s.mis.end());
    std::uint64_t const n = h::count_cases(spec);
    *total = n > ~std::uint64_t(0) - *total ? ~std::uint64_t(0) : *total + n;
    specs.push_back(std::move(spec));
  };
  if (opts.sweep.sweep) {
    // The named sweep builds its shapes and layouts from --m and --layouts itself; 8-bit inputs
    // alone take the layouts they run in (k-major A and B) unless --layouts says otherwise.
    bool const only_8bit = !s.dtypes.empty() && s.wide_dtypes.empty();
    std::vector<std::string> const sweep_layouts =
        s.layouts.empty() && only_8bit ? h::default_validate_sweep_8bit().layouts : s.layouts;
    for (h::SweepSpec spec : h::llm_validate_sweep(*opts.sweep.sweep, opts.sweep.ragged, s.ms, sweep_layouts)) {
      for (auto* k : s.sel) spec.kernels.push_back(k->name);
      if (!s.dtypes.empty()) spec.dtypes.assign(s.dtypes.begin(), s.dtypes.end());
      add_spec(std::move(spec));
    }
    return specs;
  }
  // add and gemm over f32, f16 and bf16 (or --dtypes' of them), then gemm over 8-bit inputs where
  // --dtypes names them (h::default_validate_sweep_8bit's lists).
  std::vector<std::pair<OpKind, bool>> parts = {{OpKind::add, false}, {OpKind::gemm, false}};
  if (!s.narrow_dtypes.empty()) parts.emplace_back(OpKind::gemm, true);
  for (auto [op, narrow] : parts) {
    h::SweepSpec spec = narrow ? h::default_validate_sweep_8bit() : h::default_validate_sweep(op);
    if (narrow) spec.dtypes = s.narrow_dtypes;
    else if (!s.dtypes.empty()) spec.dtypes = s.wide_dtypes;
    if (spec.dtypes.empty()) continue;
    spec.kernels.clear();
    for (auto* k : s.sel)
      if (k->op == op) spec.kernels.push_back(k->name);
    if (spec.kernels.empty()) continue;
    if (!s.layouts.empty()) spec.layouts = s.layouts;
    // The size rule both tools share (README.md, "Sizes"): given lists are crossed; with --m
    // given, an axis left out follows M value by value (--m=1000 is 1000x1000x1000); with no
    // --m, the default sweep fills in every axis left out.
    if (!s.ms.empty() || !s.ns.empty()) spec.mn_pairs.clear();
    if (!s.ms.empty()) spec.m = s.ms;
    if (!s.ns.empty()) spec.n = s.ns;
    if (!s.ks.empty()) spec.k = s.ks;
    if (!s.ms.empty() && s.ns.empty())
      for (auto m : s.ms) spec.mn_pairs.emplace_back(m, m);
    if (!s.ms.empty() && s.ks.empty()) spec.k_follows_m = true;
    add_spec(std::move(spec));
  }
  return specs;
}

// The cases of the specs within --max-cases, each one cuBLAS takes where --reference=cublas, and of
// them this process's --shard.
std::vector<h::Case> build_cases(std::vector<h::SweepSpec> const& specs, std::uint64_t total, cli::RunOptions const& run,
                                 RefMode ref) {
  if (total > run.max_cases)
    throw BadInput("the sweep has " + std::to_string(total) + (total == ~std::uint64_t(0) ? " or more" : "") +
                   " cases, more than the limit of " + std::to_string(run.max_cases) +
                   "; narrow it, or raise the limit with --max-cases");
  std::vector<h::Case> cases;
  for (h::SweepSpec const& spec : specs) {
    auto more = h::expand(spec);
    cases.insert(cases.end(), more.begin(), more.end());
  }
  if (ref == RefMode::cublas)
    for (auto const& c : cases) {
      std::string const why = h::why_no_cublas(c.problem);
      if (!why.empty())
        throw BadInput("--reference=cublas: " + why + " (" + case_name(c.kernel->name, c.problem) +
                       "); use --reference=auto or host");
    }
  // --shard=I/N: every process built the same list above (and refused it alike), and keeps its own
  // part of it. Each case's seed and repro command come from the case, not its place in the list,
  // so a case checks the same in any shard.
  if (run.shard_count > 1) {
    std::vector<h::Case> mine;
    for (std::size_t i = 0; i < cases.size(); ++i)
      if (run.in_shard(i)) mine.push_back(cases[i]);
    cases = std::move(mine);
  }
  return cases;
}

// --append continues a csv file only under the same header, which is then not repeated: whether
// the report writes its header.
bool writes_header(OwnOptions const& own, Format format, bool enumerate, Tags const& tags) {
  if (!own.append) return true;
  std::ifstream old(own.output);
  std::string first;
  if (!(old && std::getline(old, first) && format == Format::csv)) return true;
  if (first != csv_header(enumerate, tags))
    throw BadInput("--append: \"" + own.output + "\" does not start with this report's csv header (other --tags, "
                   "or another --mode?); append to a file of the same columns, or to a new one");
  return false;
}

// ---------------------------------------------------------------------------------------------
// A run on the GPU

// The GPU --device names, ready for the cases: every selected kernel runs on it, or at least one
// where none was named one by one (the others' cases are skips); --save-workspace's directory made.
void open_runner(Runner& runner, cli::Options const& opts, OwnOptions const& own, Settings const& s) {
  int const device = opts.device.device;
  runner.dev = h::query_device(device);  // NoGpu: "no CUDA GPU found"
  runner.ref = s.ref;
  runner.seed = s.seed;
  runner.save_workspace = own.save_workspace;
  runner.workspace_dir = own.workspace_dir;
  if (own.save_workspace != "none" && mkdir(own.workspace_dir.c_str(), 0777) != 0 && errno != EEXIST)
    throw BadInput("--workspace-dir \"" + own.workspace_dir + "\": " + std::strerror(errno));
  KernelInfo const* too_old = nullptr;
  bool any_ok = false;
  for (auto* k : s.sel) {
    if (runner.dev.cc < k->min_cc) too_old = too_old ? too_old : k;
    else any_ok = true;
  }
  if (too_old && (s.explicit_kernels || !any_ok))
    throw BadInput("kernel " + too_old->name + " needs compute capability " + std::to_string(too_old->min_cc / 10) +
                   "." + std::to_string(too_old->min_cc % 10) + "; GPU " + std::to_string(device) + " (" +
                   runner.dev.name + ") has " + std::to_string(runner.dev.cc / 10) + "." +
                   std::to_string(runner.dev.cc % 10));
  LOOM_CUDA(cudaSetDevice(device));
  LOOM_CUDA(cudaStreamCreate(&runner.stream));
  LOOM_CUBLAS(cublasCreate(&runner.handle));
  runner.timeout = opts.run.timeout;
  runner.fault = opts.run.fault;
}

// Runs the cases in order, each row reported as it ends, and returns the exit status: 1 when a case
// failed or a lost context cut the run short.
int run_cases(Runner& runner, std::vector<h::Case> const& cases, Reporter& rep, std::ostream& out,
              std::ostream& summary, std::string const& junit, Tags const& tags) {
  auto const t0 = std::chrono::steady_clock::now();
  bool aborted = false;
  std::string abort_reason;
  std::vector<Record> records;  // for --junit-output
  // A case that does not finish in time stops the process from the watchdog's thread: the report's
  // rows so far are flushed (each is, as it is written), and --junit-output gets the cases so far
  // and the hung one as the run's failure. The main thread is then inside the case, where it
  // writes nothing.
  h::Watchdog watchdog("loom-validate");
  watchdog.on_timeout([&](std::string const& message) {
    out.flush();
    if (!junit.empty())
      write_junit(junit, records, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                  message, tags);
  });
  runner.watchdog = &watchdog;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    Record r = runner.run(cases[i], cases.size() - i - 1);
    bool const failed = r.status == "fail";
    rep.record(r);
    if (!junit.empty()) records.push_back(r);
    if (failed) {
      // A fault in a kernel (illegal address, ...) leaves the context unusable: stop there. The
      // synchronize waits for the case's work too, so the watchdog watches it.
      h::WatchdogArm armed(watchdog, "case " + case_name(r.kernel, r.p), runner.timeout,
                           ", " + std::to_string(cases.size() - i - 1) + " cases not run; repro: " + r.repro);
      // Every CUDA call after it fails alike (loom-bench stops the same way).
      if (std::string const why = h::why_context_lost(); !why.empty()) {
        aborted = true;
        abort_reason = "CUDA context lost after " + case_name(r.kernel, r.p) + " (" + why + "); " +
                       std::to_string(cases.size() - i - 1) + " cases not run";
        break;
      }
    }
  }
  double const secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  char note[128];
  std::snprintf(note, sizeof note, "%zu cases in %.1f s", cases.size(), secs);
  if (aborted) std::cerr << "loom-validate: " << abort_reason << "\n";
  rep.end(summary, note);
  if (!junit.empty() && !write_junit(junit, records, secs, aborted ? abort_reason : std::string(), tags))
    std::cerr << "loom-validate: could not write --junit-output file \"" << junit << "\"\n";
  return (rep.failed() > 0 || aborted) ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------

// The command line checked whole, in the order of its steps, then the sweep built and counted, all
// before the GPU is looked for: a mistake anywhere in it is one line and exit status 2, not a
// message about the machine. Then --mode=enumerate's listing, or the run.
int run(int argc, char** argv) {
  CLI::App app{
      "Checks every registered Loom kernel against cuBLAS or an fp64 host reference.\n"
      "Lists take CUTLASS-profiler syntax: 1024, 1,7,127, 1024:8192:1024 (inclusive), or mixtures.\n"
      "An explicit list replaces the default sweep for that dimension only.\n"
      "Exit status: 0 all passed, 1 a case failed, 2 bad input or no usable GPU, 3 a case did not finish "
      "within --timeout.",
      "loom-validate"};
  // The options loom-bench shares (harness/cli.hpp), then loom-validate's own.
  cli::Options opts;
  opts.add(app, cli::Tool::validate);
  OwnOptions own;
  add_own_options(app, own);
  if (std::optional<int> const done = parse_command_line(app, argc, argv, opts)) return *done;

  Settings s;
  select_kernels(app, opts, own, s);
  check_dtypes(opts, s);
  check_lists(app, opts, own, s);
  check_run_values(app, own, s);
  std::uint64_t total = 0;
  std::vector<h::SweepSpec> const specs = build_specs(opts, s, &total);
  cli::check_out_dtypes(s.out_dtypes, specs);
  std::vector<h::Case> const cases = build_cases(specs, total, opts.run, s.ref);
  bool const enumerate_only = opts.device.enumerate;
  if (opts.device.cc && !enumerate_only)
    throw BadInput("--compute-capability is for --mode=enumerate (a run takes the GPU's)");
  Tags const& tags = opts.run.tags;
  bool const write_header = writes_header(own, s.format, enumerate_only, tags);

  std::ofstream file;
  auto open_output = [&] {
    if (own.output.empty()) return;
    file.open(own.output, own.append ? std::ios::app : std::ios::out);
    if (!file) throw BadInput("cannot write --output file \"" + own.output + "\"");
  };
  std::ostream& out = own.output.empty() ? std::cout : file;
  std::ostream& summary = (own.output.empty() && s.format != Format::table) ? std::cerr : std::cout;
  if (enumerate_only) {
    open_output();
    return enumerate(cases, opts.device.cc, opts.device.device, s.format, s.ref, out, summary, tags, write_header);
  }

  Runner runner;
  open_runner(runner, opts, own, s);
  open_output();
  Reporter rep(out, s.format, own.quiet, tags, write_header);
  rep.begin(runner.dev, opts.run.shard());
  int const status = run_cases(runner, cases, rep, out, summary, own.junit, tags);
  cublasDestroy(runner.handle);
  cudaStreamDestroy(runner.stream);
  return status;
}

}  // namespace

int main(int argc, char** argv) {
#if defined(__GLIBC__)
  // Every case allocates host vectors of up to a few MB; keep them on the heap instead of fresh
  // mmaps, whose page faults would otherwise cost more than the comparisons.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  try {
    return run(argc, argv);
  } catch (h::NoGpu const& e) {
    std::fprintf(stderr, "loom-validate: %s\n", one_line(e.what()).c_str());
  } catch (BadInput const& e) {
    std::fprintf(stderr, "loom-validate: %s\n", one_line(e.what()).c_str());
  } catch (std::exception const& e) {
    std::fprintf(stderr, "loom-validate: %s\n", one_line(e.what()).c_str());
  }
  return 2;
}
