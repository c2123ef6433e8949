;; The flat index's candidate pass (flat-index.ts): the Hamming distance of
;; every slot's sign code to the query's code, and how many slots lie at
;; each distance. In WebAssembly for `i8x16.popcnt`: JavaScript has no
;; popcount, and its SWAR form took 3.2 ms for 100k codes of 384 bits where
;; this takes 0.6 (bench/README). Built by scripts/build-hamming-scan.ts into
;; hamming-scan.wasm.ts; a test holds the two to each other.
;;
;; Memory (the index's own, imported): `n` codes of `chunks` 16-byte chunks
;; each from `codes`; the query's code (same length) at `query`; float64
;; expiry and validity times per slot at `expires` and `validFrom`.
;; Writes one u16 distance per slot to `dist` (`dead` for a slot not live at
;; `now`: expired, or not valid yet) and adds one to the u32 counter of that
;; distance in `hist`, which the caller zeroes. `chunks` must be at most 31:
;; the per-byte counts are summed in 8 bits (at most 8 a chunk).
(module
  (import "index" "memory" (memory 1))
  (func (export "scan")
    (param $codes i32) (param $n i32) (param $chunks i32) (param $query i32)
    (param $expires i32) (param $validFrom i32) (param $now f64) (param $dead i32)
    (param $dist i32) (param $hist i32)
    (local $i i32) (local $c i32) (local $p i32) (local $s i32) (local $acc v128) (local $t v128)
    (local.set $p (local.get $codes))
    (block $done
      (loop $slots
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $s (local.get $dead))
        (if (i32.and
              (f64.gt
                (f64.load (i32.add (local.get $expires) (i32.shl (local.get $i) (i32.const 3))))
                (local.get $now))
              (f64.le
                (f64.load (i32.add (local.get $validFrom) (i32.shl (local.get $i) (i32.const 3))))
                (local.get $now)))
          (then
            (local.set $acc (v128.const i64x2 0 0))
            (local.set $c (i32.const 0))
            (loop $chunk
              (local.set $acc
                (i8x16.add (local.get $acc)
                  (i8x16.popcnt
                    (v128.xor
                      (v128.load (i32.add (local.get $p) (i32.shl (local.get $c) (i32.const 4))))
                      (v128.load (i32.add (local.get $query) (i32.shl (local.get $c) (i32.const 4))))))))
              (local.set $c (i32.add (local.get $c) (i32.const 1)))
              (br_if $chunk (i32.lt_u (local.get $c) (local.get $chunks))))
            ;; The sixteen byte counts summed: pairwise to 16 bits, to 32, then the four lanes.
            (local.set $t
              (i32x4.extadd_pairwise_i16x8_u (i16x8.extadd_pairwise_i8x16_u (local.get $acc))))
            (local.set $s
              (i32.add
                (i32.add (i32x4.extract_lane 0 (local.get $t)) (i32x4.extract_lane 1 (local.get $t)))
                (i32.add (i32x4.extract_lane 2 (local.get $t)) (i32x4.extract_lane 3 (local.get $t)))))))
        (i32.store16 (i32.add (local.get $dist) (i32.shl (local.get $i) (i32.const 1))) (local.get $s))
        (i32.store (i32.add (local.get $hist) (i32.shl (local.get $s) (i32.const 2)))
          (i32.add
            (i32.load (i32.add (local.get $hist) (i32.shl (local.get $s) (i32.const 2))))
            (i32.const 1)))
        (local.set $p (i32.add (local.get $p) (i32.shl (local.get $chunks) (i32.const 4))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $slots)))))
