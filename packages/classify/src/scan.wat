;; The literal scan of prefilter.ts (`LiteralScanner`) as WebAssembly: the DFA walks over the
;; text's bytes, the same as the JavaScript `oneLane` and `lanes`, over the same table. Compiled by
;; wabt (`wat2wasm`) into scan-wasm.ts, which a test keeps equal to this file (`UPDATE_WASM=1`).
;;
;; Written by hand rather than taken from a library: no npm package ships an Aho–Corasick walk as
;; WebAssembly, and compiling one (the Rust aho-corasick crate through wasm-bindgen, or an
;; AssemblyScript port) would bring its own automaton, built whole and eagerly in its own memory
;; with matches handed back as objects, plus a compiler toolchain for every contributor and CI.
;; prefilter.ts needs only the DFA walk over the one table JavaScript resolves lazily and shares
;; with its own walk: two loops, under 700 bytes compiled, and wabt (an npm devDependency with no
;; native build) is the whole toolchain.
;;
;; The memory (exported, grown by JavaScript) holds, from address 0:
;;   0..40   where a walk paused (see each function);
;;   48..    the text's bytes (ASCII, every other byte made 0 by JavaScript);
;;   then    the hits noted: (entry, byte address) pairs of i32;
;;   then    the DFA table: u16 entries, 128 a row, cell = (row << 7) | byte, entry = (next row << 1)
;;           | 1 when a literal ends there, 0xffff when not resolved yet (JavaScript resolves it).
(module
  (memory (export "memory") 1)
  ;; Walks the bytes from address $at to $end from state $state (a row << 7), noting each hit at
  ;; $noted (after the $count numbers noted before): returns how many numbers are noted, or -1 on
  ;; an unresolved entry, having written where it paused from address 0 (the byte's address, the
  ;; cell, the count): resume there, from that cell's row, once it is resolved.
  (func (export "scan")
    (param $at i32) (param $end i32) (param $table i32) (param $noted i32)
    (param $state i32) (param $count i32)
    (result i32)
    (local $cell i32) (local $entry i32) (local $into i32)
    (block $done
      (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
      (loop $step
        (local.set $cell (i32.or (local.get $state) (i32.load8_u (local.get $at))))
        (local.set $entry
          (i32.load16_u (i32.add (local.get $table) (i32.shl (local.get $cell) (i32.const 1)))))
        ;; Odd: a hit, or not resolved yet (0xffff is odd too).
        (if (i32.and (local.get $entry) (i32.const 1))
          (then
            (if (i32.eq (local.get $entry) (i32.const 0xffff))
              (then
                (i32.store (i32.const 0) (local.get $at))
                (i32.store (i32.const 4) (local.get $cell))
                (i32.store (i32.const 8) (local.get $count))
                (return (i32.const -1))))
            (local.set $into (i32.add (local.get $noted) (i32.shl (local.get $count) (i32.const 2))))
            (i32.store (local.get $into) (local.get $entry))
            (i32.store offset=4 (local.get $into) (local.get $at))
            (local.set $count (i32.add (local.get $count) (i32.const 2)))))
        (local.set $state (i32.shl (i32.shr_u (local.get $entry) (i32.const 1)) (i32.const 7)))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br_if $step (i32.lt_u (local.get $at) (local.get $end)))))
    (local.get $count))

  ;; Four lanes stepped together (prefilter.ts `lanes`: four independent chains of loads, which the
  ;; CPU overlaps): step $at to $steps, lane k reading the byte at $pk + $at from state $sk. Notes
  ;; each hit (entry, byte address) at $noted after the $count numbers before; returns how many
  ;; numbers are noted, or -1 when a lane met an unresolved entry, having written from address 0
  ;; the four states, the four cells, $at and the count: resume from there once they are resolved.
  (func (export "lanes")
    (param $p0 i32) (param $p1 i32) (param $p2 i32) (param $p3 i32) (param $steps i32)
    (param $table i32) (param $noted i32) (param $at i32) (param $count i32)
    (param $s0 i32) (param $s1 i32) (param $s2 i32) (param $s3 i32)
    (result i32)
    (local $c0 i32) (local $c1 i32) (local $c2 i32) (local $c3 i32)
    (local $e0 i32) (local $e1 i32) (local $e2 i32) (local $e3 i32)
    (local $into i32)
    (block $done
      (br_if $done (i32.ge_u (local.get $at) (local.get $steps)))
      (loop $step
        (local.set $c0 (i32.or (local.get $s0) (i32.load8_u (i32.add (local.get $p0) (local.get $at)))))
        (local.set $c1 (i32.or (local.get $s1) (i32.load8_u (i32.add (local.get $p1) (local.get $at)))))
        (local.set $c2 (i32.or (local.get $s2) (i32.load8_u (i32.add (local.get $p2) (local.get $at)))))
        (local.set $c3 (i32.or (local.get $s3) (i32.load8_u (i32.add (local.get $p3) (local.get $at)))))
        (local.set $e0 (i32.load16_u (i32.add (local.get $table) (i32.shl (local.get $c0) (i32.const 1)))))
        (local.set $e1 (i32.load16_u (i32.add (local.get $table) (i32.shl (local.get $c1) (i32.const 1)))))
        (local.set $e2 (i32.load16_u (i32.add (local.get $table) (i32.shl (local.get $c2) (i32.const 1)))))
        (local.set $e3 (i32.load16_u (i32.add (local.get $table) (i32.shl (local.get $c3) (i32.const 1)))))
        ;; Any odd: a hit, or not resolved yet (0xffff).
        (if (i32.and
              (i32.or (i32.or (local.get $e0) (local.get $e1)) (i32.or (local.get $e2) (local.get $e3)))
              (i32.const 1))
          (then
            (if (i32.or
                  (i32.or (i32.eq (local.get $e0) (i32.const 0xffff)) (i32.eq (local.get $e1) (i32.const 0xffff)))
                  (i32.or (i32.eq (local.get $e2) (i32.const 0xffff)) (i32.eq (local.get $e3) (i32.const 0xffff))))
              (then
                (i32.store (i32.const 0) (local.get $s0))
                (i32.store (i32.const 4) (local.get $s1))
                (i32.store (i32.const 8) (local.get $s2))
                (i32.store (i32.const 12) (local.get $s3))
                (i32.store (i32.const 16) (local.get $c0))
                (i32.store (i32.const 20) (local.get $c1))
                (i32.store (i32.const 24) (local.get $c2))
                (i32.store (i32.const 28) (local.get $c3))
                (i32.store (i32.const 32) (local.get $at))
                (i32.store (i32.const 36) (local.get $count))
                (return (i32.const -1))))
            (if (i32.and (local.get $e0) (i32.const 1))
              (then
                (local.set $into (i32.add (local.get $noted) (i32.shl (local.get $count) (i32.const 2))))
                (i32.store (local.get $into) (local.get $e0))
                (i32.store offset=4 (local.get $into) (i32.add (local.get $p0) (local.get $at)))
                (local.set $count (i32.add (local.get $count) (i32.const 2)))))
            (if (i32.and (local.get $e1) (i32.const 1))
              (then
                (local.set $into (i32.add (local.get $noted) (i32.shl (local.get $count) (i32.const 2))))
                (i32.store (local.get $into) (local.get $e1))
                (i32.store offset=4 (local.get $into) (i32.add (local.get $p1) (local.get $at)))
                (local.set $count (i32.add (local.get $count) (i32.const 2)))))
            (if (i32.and (local.get $e2) (i32.const 1))
              (then
                (local.set $into (i32.add (local.get $noted) (i32.shl (local.get $count) (i32.const 2))))
                (i32.store (local.get $into) (local.get $e2))
                (i32.store offset=4 (local.get $into) (i32.add (local.get $p2) (local.get $at)))
                (local.set $count (i32.add (local.get $count) (i32.const 2)))))
            (if (i32.and (local.get $e3) (i32.const 1))
              (then
                (local.set $into (i32.add (local.get $noted) (i32.shl (local.get $count) (i32.const 2))))
                (i32.store (local.get $into) (local.get $e3))
                (i32.store offset=4 (local.get $into) (i32.add (local.get $p3) (local.get $at)))
                (local.set $count (i32.add (local.get $count) (i32.const 2)))))))
        (local.set $s0 (i32.shl (i32.shr_u (local.get $e0) (i32.const 1)) (i32.const 7)))
        (local.set $s1 (i32.shl (i32.shr_u (local.get $e1) (i32.const 1)) (i32.const 7)))
        (local.set $s2 (i32.shl (i32.shr_u (local.get $e2) (i32.const 1)) (i32.const 7)))
        (local.set $s3 (i32.shl (i32.shr_u (local.get $e3) (i32.const 1)) (i32.const 7)))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br_if $step (i32.lt_u (local.get $at) (local.get $steps)))))
    (local.get $count)))
