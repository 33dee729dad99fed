#!/usr/bin/env bash
# ctest ncu_summary_synthetic: scripts/ncu_summary.py on a small synthetic export in the shape of
# `ncu --import R --page raw --csv --print-units base` (a warning line, header, units, one kernel).
# Usage: bash ncu_summary_smoke.sh PYTHON3
set -uo pipefail
py=${1:?usage: ncu_summary_smoke.sh PYTHON3}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/raw.csv" <<'CSV'
==WARNING== a line ncu may print first
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum","dram__throughput.avg.pct_of_peak_sustained_elapsed","gpu__time_duration.sum","launch__registers_per_thread","sm__maximum_warps_per_active_cycle_pct","sm__throughput.avg.pct_of_peak_sustained_elapsed","sm__warps_active.avg.pct_of_peak_sustained_active","smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio","smsp__average_warps_issue_stalled_selected_per_issue_active.ratio","smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
"","","","","","","","","","","","byte","byte","%","nsecond","register/thread","%","%","%","ratio","ratio","ratio","",""
"0","4242","loom-bench","gpu","void loom::add_kernel<float, true>(loom::AddArgs<float>)","1","13","(256, 1, 1)","(64, 512, 1)","0","9.0","2,147,483,648","1,073,741,824","92.5","1,100,000","40","100","11.2","87.5","25.5","1","3.25","0","0"
CSV

out=$("$py" "$root/scripts/ncu_summary.py" "$tmp/raw.csv" --case add/f32/ccc/16384x16384x0 --op add \
      --m 16384 --n 16384 --dtype f32) || { echo "FAIL: ncu_summary.py exited non-zero"; exit 1; }
echo "$out"
fails=0
for want in "add/f32/ccc/16384x16384x0 (1 kernel(s))" "duration: 1100.0 us" \
            "DRAM: 2,928.4 GB/s achieved (read 2.147 GB, write 1.074 GB), 92.5% of peak" \
            "occupancy: achieved 87.5% of theoretical 100.0%" \
            "top warp stalls (warps stalled per issue-active cycle): long_scoreboard 25.50, lg_throttle 3.25" \
            "shared-memory bank conflicts: loads 0, stores 0" "40 registers/thread"; do
  grep -qF -- "$want" <<<"$out" || { echo "FAIL: missing: $want"; fails=$((fails + 1)); }
done
# An export without dram__throughput (the H100 machine's ncu): the share of the peak comes from the bytes per
# second over the peak bytes per DRAM cycle times the DRAM clock (these figures: an H100 profile).
cat >"$tmp/raw2.csv" <<'CSV'
"ID","Kernel Name","dram__bytes.sum.per_second","dram__bytes.sum.peak_sustained","dram__cycles_elapsed.avg.per_second","dram__bytes_read.sum","dram__bytes_write.sum","dram__bytes_read.sum.pct_of_peak_sustained_elapsed","dram__bytes_write.sum.pct_of_peak_sustained_elapsed","gpu__time_duration.sum"
"","","byte/s","byte/cycle","hz","byte","byte","%","%","nsecond"
"0","gemm_kernel","1,663,405,247,813.41","1,280","2,609,766,763.85","34,603,008","1,835,008","47.29","2.51","22,016"
CSV
out=$("$py" "$root/scripts/ncu_summary.py" "$tmp/raw2.csv" --case gemm --op gemm) || { echo "FAIL: exit status on raw2"; fails=$((fails + 1)); }
grep -qF "DRAM: 1,663.4 GB/s achieved (read 0.035 GB, write 0.002 GB), 49.8% of peak" <<<"$out" ||
  { echo "FAIL: the DRAM share without dram__throughput: $(grep DRAM <<<"$out")"; fails=$((fails + 1)); }
# Neither: the read and write shares, added.
sed -i 's/"1,280"/""/' "$tmp/raw2.csv"
out=$("$py" "$root/scripts/ncu_summary.py" "$tmp/raw2.csv" --case gemm --op gemm)
grep -qF "49.8% of peak" <<<"$out" || { echo "FAIL: the read and write shares: $(grep DRAM <<<"$out")"; fails=$((fails + 1)); }
# sm90's one-time GPC probes in the range: left out and counted; a profile of probes alone fails.
cat >"$tmp/raw3.csv" <<'CSV'
"ID","Kernel Name","gpu__time_duration.sum"
"","","nsecond"
"0","(anonymous namespace)::placement_probe(unsigned int *, unsigned long long)","202,000"
"1","(anonymous namespace)::placement_probe(unsigned int *, unsigned long long)","201,000"
"2","void loom::sm90::gemm_sm90_kernel<Cfg>(loom::sm90::Params)","9,000"
CSV
out=$("$py" "$root/scripts/ncu_summary.py" "$tmp/raw3.csv" --case gemm --op gemm) || { echo "FAIL: exit status on raw3"; fails=$((fails + 1)); }
grep -qF "(1 kernel(s); 2 launches of sm90's one-time GPC probe left out)" <<<"$out" && grep -qF "duration: 9.0 us" <<<"$out" &&
  ! grep -qF "placement_probe" <<<"$out" || { echo "FAIL: the probes: $out"; fails=$((fails + 1)); }
sed -i '/gemm_sm90_kernel/d' "$tmp/raw3.csv"
if "$py" "$root/scripts/ncu_summary.py" "$tmp/raw3.csv" --case gemm --op gemm >/dev/null 2>&1; then
  echo "FAIL: a profile of the probes alone exits 0"; fails=$((fails + 1))
fi
if "$py" "$root/scripts/ncu_summary.py" "$tmp/missing.csv" 2>/dev/null; then
  echo "FAIL: a missing file exits 0"; fails=$((fails + 1))
fi
[[ $fails -eq 0 ]] && echo "ncu_summary.py: all checks passed"
[[ $fails -eq 0 ]]
