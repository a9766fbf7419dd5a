//===- LaneCopies.h - gfx950 copies into LDS without registers --*- C++ -*-===//
//
// gfx950's LDS DMA: global_load_lds_dword{,x4} and buffer_load_dword{,x4}
// with the lds bit write what each active lane reads into LDS at M0 (the
// wave's base, the same in every lane) + lane * bytes, without registers.
// They count in vmcnt like any vector-memory load, completing in order, so
// waiting for all but the newest n copies is s_waitcnt vmcnt(instructions of
// those n). Buffer loads check each lane's offset against the resource's
// record count and read zeros past it (written to LDS as zeros); buffer
// stores past it write nothing.
//
//===----------------------------------------------------------------------===//
#ifndef KDA_CONVERSION_GPUTOROCDL_GFX950_LANECOPIES_H
#define KDA_CONVERSION_GPUTOROCDL_GFX950_LANECOPIES_H

#include <cstdint>

namespace kda::gfx950 {

/// Bytes a lane copies in one lane-ordered instruction, widest first: 16
/// (dwordx4) and 4 (dword). The 1- and 2-byte forms still advance LDS by a
/// dword per lane, and the 12-byte form needs 3-element groups.
inline constexpr unsigned kLaneCopyBytes[] = {16, 4};

/// A raw buffer resource's record count (bytes from its base a lane may
/// access) and the offset lanes outside the tensor use: beyond the count, so
/// loads read zeros and stores are dropped.
inline constexpr int64_t kBufferRecords = 0x7FFF'FFFF;
inline constexpr uint32_t kOutOfRangeOffset = 0x8000'0000u;
/// Dword 3 of a raw buffer resource on gfx9 (as MLIR's raw-buffer lowering
/// sets it): numeric format float (bits 12-14 = 7), data format 32 (bits
/// 15-18 = 4); no swizzle, stride 0.
inline constexpr uint32_t kRawBufferFlags = 0x27000;

/// Vector-memory operations vmcnt counts on gfx950 (6 bits).
inline constexpr unsigned kMaxVectorMemoryCount = 63;

/// The s_waitcnt operand that waits until at most `pending` vector-memory
/// operations of the wave are in flight: vmcnt in bits 0-3 (low) and 14-15
/// (high), clamped to 63 (a smaller bound holds too); expcnt (bits 4-6) and
/// lgkmcnt (bits 8-11) at their maxima, not waited for.
unsigned getVectorMemoryWait(unsigned pending);

/// The s_waitcnt operand that waits until the wave's LDS accesses have
/// completed (lgkmcnt(0)), vmcnt and expcnt at their maxima.
unsigned getLDSWait();

/// The lane-ordered instructions a wave of `waveSize` lanes issues to copy
/// `elements` elements of `elementBytes` bytes, `vectorBytes` per lane.
int64_t getLaneCopyInstructions(int64_t elements, int64_t elementBytes,
                                int64_t vectorBytes, unsigned waveSize);

} // namespace kda::gfx950

#endif // KDA_CONVERSION_GPUTOROCDL_GFX950_LANECOPIES_H
