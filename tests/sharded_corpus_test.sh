#!/usr/bin/env bash
# The sharded ground-truth corpus (samples/sharded, and the held-out
# samples/sharded_heldout) against its own rules,
# from its files alone (python3; no jax): `gen_sharding_corpus.py --check`
# re-derives every plan from families.yaml with the family rules and compares
# it byte for byte, adds each candidate's input and output shards up to
# memory_analysis(), checks every collective's groups partition the devices
# and that summary.json and the README table are current.
# Then it shows the check is not vacuous: three copies of the corpus, each
# with one edit (a plan spec, an input's shard bytes, a README table cell),
# must each fail it.
#
# usage: sharded_corpus_test.sh SOURCE_DIR
set -euo pipefail

source_dir=$1
gen="$source_dir/scripts/gen_sharding_corpus.py"
corpus="$source_dir/samples/sharded"

python3 "$gen" --check --out "$corpus"
# The held-out program (samples/sharded_heldout) follows the same rules.
python3 "$gen" --check --out "$source_dir/samples/sharded_heldout"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

expect_failure() {  # name, sed expression, file relative to the corpus
  local dir="$work/$1"
  cp -r "$corpus" "$dir"
  sed -i "$2" "$dir/$3"
  if cmp -s "$corpus/$3" "$dir/$3"; then
    echo "FAIL: the edit '$2' did not change $3" >&2
    exit 1
  fi
  if python3 "$gen" --check --out "$dir" >"$work/$1.log" 2>&1; then
    echo "FAIL: --check passed a corpus with $3 edited ($2)" >&2
    exit 1
  fi
  echo "ok: --check rejects an edited $3: $(grep -m1 '^error' "$work/$1.log")"
}

expect_failure plan 's/x: \[fsdp, null\]/x: [null, null]/' \
  mlp_train_step/candidates/fsdp8.plan.yaml
expect_failure shard 's/"shard_bytes": 524288/"shard_bytes": 524289/' \
  moe_train_step/candidates/ep8.truth.json
expect_failure table 's/| mlp_train_step | tp8 | 3.01 |/| mlp_train_step | tp8 | 3.02 |/' \
  README.md
