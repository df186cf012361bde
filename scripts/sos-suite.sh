#!/usr/bin/env bash
# Runs Sandia OpenSHMEM's public test suite (the tests-sos repository: its
# test/unit, test/spec-example, test/apps and test/shmemx programs) against
# this build of rshmem, on one node and with every peer remote, and prints
# one line per program and mode and a closing "N passed, N failed" line per
# mode. Programs that fail on one node are listed; the point of the remote
# mode is that it fails nothing the one-node mode passes.
#
# Usage: scripts/sos-suite.sh TESTS_SOS_DIR [NP...]
#   TESTS_SOS_DIR  a checkout of tests-sos (the directory holding test/)
#   NP             PE counts (default: 2 4)
# Environment:
#   MODES          which modes to run (default: "node remote"); "remote"
#                  starts the PEs with Open MPI's mpirun and its default
#                  components, RSHMEM_NODE_SIZE=1 (every peer on another
#                  virtual node); "remote-tcp" does the same over TCP only
#   ONLY           a regular expression: only programs whose path matches
#   TIMEOUT        seconds per run (default 60)
#   OUT            build directory (default target/sos-suite)
#   BIN            directory of the oshcc and oshrun to use (default target/debug)
# Needs a built rshmem (cargo build) and, for the remote modes, Open MPI.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
sos=${1:?usage: scripts/sos-suite.sh TESTS_SOS_DIR [NP...]}
shift
nps=("$@")
[ ${#nps[@]} -gt 0 ] || nps=(2 4)
bin=${BIN:-$here/target/debug}
out=${OUT:-$here/target/sos-suite}
timeout=${TIMEOUT:-60}
modes=${MODES:-node remote}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

programs=()
for dir in unit spec-example apps shmemx; do
    for src in "$sos"/test/$dir/*.c "$sos"/test/$dir/*.cpp; do
        [ -e "$src" ] || continue
        name=$dir/$(basename "${src%.*}")
        [[ $name =~ ${ONLY:-.} ]] || continue
        # helpers of another program, and MPI+SHMEM programs needing mpicc
        case $name in unit/mt_lock | spec-example/hybrid_mpi_*) continue ;; esac
        exe=$out/${name//\//_}
        cc=$bin/oshcc
        [[ $src == *.cpp ]] && cc=$bin/oshcxx
        extra=()
        [ "$name" = unit/mt_lock_test ] && extra=("$sos/test/unit/mt_lock.c")
        if [ ! -x "$exe" ] || [ "$src" -nt "$exe" ]; then
            if ! "$cc" -O1 -DENABLE_SHMEMX_TESTS -I"$sos/test/include" \
                "$src" "${extra[@]}" -o "$exe" -lpthread -lm >"$exe.cc.log" 2>&1; then
                echo "build-failed $name (see $exe.cc.log)"
                continue
            fi
        fi
        programs+=("$name")
    done
done

for mode in $modes; do
    passed=0 failed=0 failures=()
    for np in "${nps[@]}"; do
        for name in "${programs[@]}"; do
            exe=$out/${name//\//_}
            log=$out/${name//\//_}.$mode.$np.log
            case $mode in
            node) cmd=("$bin/oshrun" -np "$np" "$exe") ;;
            remote) cmd=(mpirun --oversubscribe -np "$np" --mca mpi_yield_when_idle 1
                -x RSHMEM_NODE_SIZE=1 "$exe") ;;
            remote-tcp) cmd=(mpirun --oversubscribe -np "$np" --mca mpi_yield_when_idle 1
                --mca pml ob1 --mca btl tcp,self --mca osc ucx -x UCX_TLS=tcp
                -x RSHMEM_NODE_SIZE=1 "$exe") ;;
            *) echo "unknown mode $mode" >&2; exit 2 ;;
            esac
            start=$(date +%s%N)
            timeout -k 5 "$timeout" "${cmd[@]}" >"$log" 2>&1
            rc=$?
            ms=$((($(date +%s%N) - start) / 1000000))
            secs=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
            if [ $rc -eq 0 ]; then
                passed=$((passed + 1))
                printf 'ok     %-7s np=%s %-45s %8ss\n' "$mode" "$np" "$name" "$secs"
            else
                failed=$((failed + 1))
                failures+=("$name np=$np (exit $rc)")
                printf 'FAIL   %-7s np=%s %-45s %8ss exit %s (%s)\n' "$mode" "$np" "$name" "$secs" "$rc" "$log"
            fi
        done
    done
    echo "$mode: ${failures[*]:+failed: }$(printf '%s; ' "${failures[@]}")"
    echo "$mode: $passed passed, $failed failed"
done
