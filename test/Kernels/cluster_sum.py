# normalize_rows (test/python/cluster_kernels.py): rows split over 4 programs that sum their
# squares with kt.cluster_sum, on every target.
#
# sm_90a: the kernel runs in clusters of 1x4x1 (.reqnctapercluster); each program pushes its
# value into the others' shared memory with st.async and waits on its own barrier.
# RUN: kda-compile %kda_src/test/python/cluster_kernels.py --kernel normalize_rows \
# RUN:   --target sm_90a --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D COLS=128 -D PARTS=4 \
# RUN:   --emit ptx -o - | FileCheck %s --check-prefix=SM90
# SM90: .version 8.1
# SM90: .reqnctapercluster 1, 4, 1
# SM90: mbarrier.init.shared.b64
# SM90: fence.mbarrier_init.release.cluster;
# SM90: barrier.cluster.arrive.relaxed.aligned;
# SM90: barrier.cluster.wait.aligned;
# SM90: mbarrier.arrive.expect_tx.shared.b64 {{.*}}, [kda_smem_0], {{.*}};
# SM90: mov.u32 {{.*}}, %cluster_ctarank;
# SM90: mapa.shared::cluster.u32
# SM90: st.async.shared::cluster.mbarrier::complete_tx::bytes.b32
# SM90: mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64
# The resource report gives the cluster shape (ptxas, where installed, for the report).
# RUN: %if ptxas %{ kda-compile %kda_src/test/python/cluster_kernels.py --kernel normalize_rows \
# RUN:   --target sm_90a --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D COLS=128 -D PARTS=4 \
# RUN:   --emit cubin -o %t.cubin --fail-on-spill --stats 2>&1 | FileCheck %s --check-prefix=STATS %}
# STATS: resource usage of kernel 'normalize_rows' (sm_90a, warp 32)
# STATS: cluster {{ *}}1x4x1 {{ *}}programs
#
# AMD targets have no clusters: the error names the call's line.
# RUN: not kda-compile %kda_src/test/python/cluster_kernels.py --kernel normalize_rows \
# RUN:   --target gfx950 --signature 'x_ptr=*f32:16, out_ptr=*f32:16' -D COLS=128 -D PARTS=4 \
# RUN:   --emit asm -o - 2>&1 | FileCheck %s --check-prefix=AMD
# AMD: cluster_kernels.py:14:{{[0-9]+}}: error: 'tile.cluster_sum' op needs thread-block clusters, which gfx950 does not have
#
# The CPU header launches through kda_cpu_launch_in_clusters with the shape and the argument
# count (the exchange follows the arguments).
# RUN: kda-compile %kda_src/test/python/cluster_kernels.py --kernel normalize_rows \
# RUN:   --target cpu --signature 'x_ptr=*f32, out_ptr=*f32' -D COLS=128 -D PARTS=4 \
# RUN:   --emit header -o - | FileCheck %s --check-prefix=HEADER
# HEADER: #define NORMALIZE_ROWS_CLUSTER_SHAPE_Y 4
# HEADER: return kda_cpu_launch_in_clusters((void *)&normalize_rows__kda_cpu, (int32_t)grid.x,
# HEADER-NEXT: (int32_t)grid.y, (int32_t)grid.z, 1, 4, 1, args, 2, num_threads, error);
