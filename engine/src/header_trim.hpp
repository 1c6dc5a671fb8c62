// What a bundle's source leaves out of NVRTC's parse, as #defines ahead of its
// includes: CCCL's support for the 8-, 6- and 4-bit floats no call takes, and
// the wrappers of cuda/ptx for PTX instructions no block, warp or thread primitive
// issues (tensor cores, multimem, tensor maps, ...), which CUB's headers include
// whole. Together a third of a cold compile's header parsing; the code generated is
// the same. A CCCL that needs one of them after all fails to compile the trimmed
// source, and the engine compiles the source again untrimmed (Engine::compile).
#pragma once

#include <string>

namespace coop {

std::string trimmed_headers();

}  // namespace coop
