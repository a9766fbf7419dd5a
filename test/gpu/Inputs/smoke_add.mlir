// A hand-written GPU-stage kernel (LLVM dialect + NVVM) that checks the
// runtime on a real GPU independently of the DSL's GPU lowering:
//   out[i] = x[i] + alpha * y[i] for i < n, i = blockIdx.x * blockDim.x + threadIdx.x
// Each value goes through static shared memory (blocks of up to 1024 threads).
module {
  llvm.mlir.global internal @stage() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<1024 x f32>

  llvm.func @smoke_add(%x: !llvm.ptr<1>, %y: !llvm.ptr<1>, %out: !llvm.ptr<1>, %n: i32, %alpha: f32) attributes {nvvm.kernel} {
    %tid = nvvm.read.ptx.sreg.tid.x : i32
    %bid = nvvm.read.ptx.sreg.ctaid.x : i32
    %bdim = nvvm.read.ptx.sreg.ntid.x : i32
    %base = llvm.mul %bid, %bdim : i32
    %i = llvm.add %base, %tid : i32
    %in = llvm.icmp "slt" %i, %n : i32
    llvm.cond_br %in, ^body, ^exit
  ^body:
    %idx = llvm.sext %i : i32 to i64
    %px = llvm.getelementptr %x[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %py = llvm.getelementptr %y[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    %vx = llvm.load %px : !llvm.ptr<1> -> f32
    %vy = llvm.load %py : !llvm.ptr<1> -> f32
    %m = llvm.fmul %alpha, %vy : f32
    %s = llvm.fadd %vx, %m : f32
    %smem = llvm.mlir.addressof @stage : !llvm.ptr<3>
    %t = llvm.sext %tid : i32 to i64
    %slot = llvm.getelementptr %smem[0, %t] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, !llvm.array<1024 x f32>
    llvm.store volatile %s, %slot : f32, !llvm.ptr<3>
    %r = llvm.load volatile %slot : !llvm.ptr<3> -> f32
    %po = llvm.getelementptr %out[%idx] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
    llvm.store %r, %po : f32, !llvm.ptr<1>
    llvm.br ^exit
  ^exit:
    llvm.return
  }
}
