//===- TensorDescriptor.cpp - gfx1250 Tensor Data Mover descriptors -------===//
#include "kda/Conversion/GPUToROCDL/GFX1250/TensorDescriptor.h"

#include <algorithm>

using namespace kda::gfx1250;

llvm::SmallVector<TDMFieldSlice, 3>
kda::gfx1250::getFieldSlices(TDMField field) {
  llvm::SmallVector<TDMFieldSlice, 3> slices;
  for (unsigned bit = field.first, end = field.first + field.width;
       bit < end;) {
    unsigned dword = bit / 32, dwordBit = bit % 32;
    unsigned bits = std::min(32 - dwordBit, end - bit);
    slices.push_back({dword, dwordBit, bit - field.first, bits});
    bit += bits;
  }
  return slices;
}

static uint64_t lowBits(unsigned bits) {
  return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

void kda::gfx1250::setField(TDMGroups &groups, TDMField field, uint64_t value) {
  for (const TDMFieldSlice &s : getFieldSlices(field)) {
    uint32_t mask = uint32_t(lowBits(s.bits)) << s.dwordBit;
    uint32_t bits = uint32_t((value >> s.valueBit) & lowBits(s.bits))
                    << s.dwordBit;
    uint32_t &word = groups[field.group][s.dword];
    word = (word & ~mask) | bits;
  }
}

uint64_t kda::gfx1250::getField(const TDMGroups &groups, TDMField field) {
  uint64_t value = 0;
  for (const TDMFieldSlice &s : getFieldSlices(field))
    value |=
        uint64_t((groups[field.group][s.dword] >> s.dwordBit) & lowBits(s.bits))
        << s.valueBit;
  return value;
}

unsigned kda::gfx1250::getTensorCountWait(unsigned pending) {
  return std::min(pending, 63u);
}
