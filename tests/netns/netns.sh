#!/bin/sh
# Two "nodes" on one machine for rshmem's multi-node tests (root only): network
# namespaces rshmem_a_TAG and rshmem_b_TAG joined by a veth pair, addresses
# 10.77.0.1 and 10.77.0.2, loopback up in each. The addresses exist only on
# the pair, so runs with different tags do not see each other.
#
#   netns.sh up [TAG]   create them (removing a leftover of the same TAG
#                       first) and print TAG (default: this script's pid)
#   netns.sh down TAG   kill every process in them and delete them; idempotent
#   netns.sh link TAG up|down
#                       bring the link between them up or down (nodea's end of
#                       the pair; both ends lose their carrier)
#
# TAG: 1 to 8 lowercase letters or digits (interface names have 15 bytes).
# fake-ssh (next to this script) starts Open MPI's daemons in them.
set -u

usage() {
    echo "usage: $0 up [TAG] | down TAG | link TAG up|down (TAG: 1 to 8 lowercase letters or digits)" >&2
    exit 2
}
case "$#:$1" in 1:up | 2:up | 2:down | 3:link) ;; *) usage ;; esac
tag=${2:-$$}
case "$tag" in '' | *[!a-z0-9]*) usage ;; esac
[ ${#tag} -le 8 ] || usage
na=rshmem_a_$tag nb=rshmem_b_$tag va=rsa$tag vb=rsb$tag

exists() { ip netns list | awk '{print $1}' | grep -qx "$1"; }

down() {
    for ns in "$na" "$nb"; do
        exists "$ns" || continue
        # Processes die before their namespace goes; a few tries for those
        # that a dying parent started meanwhile.
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            pids=$(ip netns pids "$ns" 2>/dev/null)
            [ -z "$pids" ] && break
            kill -KILL $pids 2>/dev/null
            sleep 0.1
        done
        ip netns del "$ns" 2>/dev/null
    done
    # Left in the root namespace only if "up" failed half-way.
    ip link del "$va" 2>/dev/null
    return 0
}

case "$1" in
up)
    down
    set -e
    trap 'down' EXIT
    ip netns add "$na"
    ip netns add "$nb"
    ip link add "$va" type veth peer name "$vb"
    ip link set "$va" netns "$na"
    ip link set "$vb" netns "$nb"
    ip -n "$na" addr add 10.77.0.1/24 dev "$va"
    ip -n "$nb" addr add 10.77.0.2/24 dev "$vb"
    for n in "$na $va" "$nb $vb"; do
        set -- $n
        ip -n "$1" link set "$2" up
        ip -n "$1" link set lo up
    done
    trap - EXIT
    echo "$tag"
    ;;
down) down ;;
link)
    case "$3" in up | down) ;; *) usage ;; esac
    exec ip -n "$na" link set "$va" "$3"
    ;;
*) usage ;;
esac
