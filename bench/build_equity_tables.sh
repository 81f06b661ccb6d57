#!/usr/bin/env bash
# Regenerate the equity tables shipped in yaniv_sim/data/equity (policy best, seed 2026).
# Run from the repository root: bash bench/build_equity_tables.sh
set -euo pipefail
games() { case $1 in 2) echo 20000;; 3|4) echo 10000;; 5) echo 6000;; *) echo 4000;; esac; }
for rules in standard nordic; do
  for players in 2 3 4 5 6 7 8; do
    start=$(date +%s)
    yaniv-sim equity build --rules "$rules" --players "$players" --games "$(games "$players")" \
      --seed 2026 --out "yaniv_sim/data/equity/$rules-${players}p.npz"
    echo "$rules ${players}p: $(( $(date +%s) - start )) s"
  done
done
