// RUN: crest-opt %s --crest-insert-barriers=print-reasons -o /dev/null 2>&1 | FileCheck %s

// print-reasons: each inserted barrier gets a remark (at the op it precedes)
// listing every access pair it orders: hazard kind, the two accesses (op,
// buffer, slot as a function of the K loop's induction variable t, and
// location) and how their dynamic instances relate. Pairs another barrier
// orders as well are marked.
//
// The kernel double-buffers %l (slots t mod 2 / (t+1) mod 2, prologue fill
// of slot 0) and passes each fragment through a single-slot scratch %s,
// which needs its own RAW barrier (store -> load, same iteration) and a WAR
// one (load of step t -> store of step t+1).
//   body: g0 [store %l] g1 [load %l] g2 [store %s] g3 [load %s] g4
// - %s: RAW {g3}; WAR {g4, g0, g1, g2}. %l: RAW t -> t+1 {g1 .. g4, g0};
//   WAR t -> t+1 {g2, g3, g4, g0}; prologue -> first iteration {.., g0, g1}.
// Barriers at g3 (forced) and g0 (the earliest gap that also orders the
// prologue fill). The %l pairs of neighbouring iterations are ordered by
// both.

// CHECK:      print-reasons.mlir:45:7: remark: barrier 1 (in the loop body) orders 4 access pair(s):
// CHECK-NEXT:   RAW: 'vector.store' %arg3[0] (print-reasons.mlir:40:5) -> 'vector.load' %arg3[t mod 2] (print-reasons.mlir:47:12), before the loop -> its first iteration
// CHECK-NEXT:   RAW: 'vector.store' %arg3[(t + 1) mod 2] (print-reasons.mlir:45:7) -> 'vector.load' %arg3[t mod 2] (print-reasons.mlir:47:12), iteration t -> t+1 (also ordered by another barrier)
// CHECK-NEXT:   WAR: 'vector.load' %arg3[t mod 2] (print-reasons.mlir:47:12) -> 'vector.store' %arg3[(t + 1) mod 2] (print-reasons.mlir:45:7), iteration t -> t+1 (also ordered by another barrier)
// CHECK-NEXT:   WAR: 'vector.load' %arg4[0] (print-reasons.mlir:49:12) -> 'vector.store' %arg4[0] (print-reasons.mlir:48:7), iteration t -> t+1
// CHECK:      print-reasons.mlir:49:12: remark: barrier 2 (in the loop body) orders 3 access pair(s):
// CHECK-NEXT:   RAW: 'vector.store' %arg4[0] (print-reasons.mlir:48:7) -> 'vector.load' %arg4[0] (print-reasons.mlir:49:12), same iteration
// CHECK-NEXT:   RAW: 'vector.store' %arg3[(t + 1) mod 2] {{.*}}, iteration t -> t+1 (also ordered by another barrier)
// CHECK-NEXT:   WAR: 'vector.load' %arg3[t mod 2] {{.*}}, iteration t -> t+1 (also ordered by another barrier)
// CHECK-NOT:  remark

#wg = #gpu.address_space<workgroup>
gpu.module @reasons {
  gpu.func @k(%a: memref<?x64xf16>, %out: memref<?xf16>, %n: index)
      workgroup(%l: memref<2x64xf16, #wg>, %s: memref<1x64xf16, #wg>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tid = gpu.thread_id x
    %g0 = vector.load %a[%c0, %tid] : memref<?x64xf16>, vector<4xf16>
    vector.store %g0, %l[%c0, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
    %r = scf.for %t = %c0 to %n step %c1 iter_args(%x = %g0) -> (vector<4xf16>) {
      %t1 = arith.addi %t, %c1 : index
      %next = arith.remui %t1, %c2 : index
      %g = vector.load %a[%t1, %tid] : memref<?x64xf16>, vector<4xf16>
      vector.store %g, %l[%next, %tid] : memref<2x64xf16, #wg>, vector<4xf16>
      %cur = arith.remui %t, %c2 : index
      %f = vector.load %l[%cur, %c0] : memref<2x64xf16, #wg>, vector<4xf16>
      vector.store %f, %s[%c0, %tid] : memref<1x64xf16, #wg>, vector<4xf16>
      %h = vector.load %s[%c0, %c0] : memref<1x64xf16, #wg>, vector<4xf16>
      %y = arith.addf %x, %h : vector<4xf16>
      scf.yield %y : vector<4xf16>
    }
    vector.store %r, %out[%tid] : memref<?xf16>, vector<4xf16>
    gpu.return
  }
}
