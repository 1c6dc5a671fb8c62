// Group descriptors: which threads cooperate in a call. A block is its launch
// shape (ranked x-major, as CUB's RowMajorTid); a warp group is a logical warp of
// `width` consecutive lanes inside that block; a warps group is `width` / 32
// consecutive physical warps of it (the seed's this_block().group_by(n)); a cluster
// group is `blocks` blocks of that shape launched as one thread block cluster (sm_90+),
// which share their shared memory (the seed's this_cluster()).
#pragma once

#include <optional>
#include <string>

namespace coop {

inline constexpr int kWarpThreads = 32;
inline constexpr int kMaxBlockThreads = 1024;

enum class GroupKind { Block, Warp, Warps, Cluster };

// Groups of more than one warp synchronize on a named barrier each (1 to 15; 0 is
// __syncthreads'), so a block holds at most this many of them.
inline constexpr int kMaxWarpsGroups = 15;

// Blocks of a cluster a launch may ask for without opting in to non-portable sizes.
inline constexpr int kMaxClusterBlocks = 8;

struct Dim3 {
  int x = 1, y = 1, z = 1;
  long long count() const { return 1LL * x * y * z; }
  friend bool operator==(const Dim3&, const Dim3&) = default;
};

struct Group {
  GroupKind kind = GroupKind::Block;
  Dim3 block;  // the launch's block shape; warp groups live inside it
  // Threads of one group: lanes per logical warp (Warp), 32 x warps (Warps), the cluster's (Cluster).
  int width = kWarpThreads;

  static Group this_block(Dim3 block);
  static Group this_warp(Dim3 block, int width = kWarpThreads);
  // Groups of `warps` consecutive warps; the warps past the last whole group are in none.
  static Group warps_of(Dim3 block, int warps);
  // The cluster of `blocks` blocks the calling block belongs to.
  static Group cluster_of(Dim3 block, int blocks);

  int threads() const;           // threads cooperating in one instance of the group
  int instances() const;         // whole group instances in one block (1 for a block or a cluster)
  int cluster_blocks() const;    // blocks of a cluster group; 1 for the other kinds
  std::string describe() const;  // "block(128,1,1)", "warp(8 lanes) in block(128,1,1)", "2 warps in block(256,1,1)",
                                 // "cluster of 2 x block(128,1,1)"
  friend bool operator==(const Group&, const Group&) = default;
};

const char* to_string(GroupKind kind);

// Throws coop::Error(InvalidGroup) naming `call` and the offending field.
void validate(const Group& group, const std::string& call);

// "block:X[,Y[,Z]]", "warp", "warp:N", "warps:N", "cluster:N"; warp(s) and cluster groups take
// `block` as their block.
Group parse_group(const std::string& text, Dim3 block, const std::string& call);
Dim3 parse_dim3(const std::string& text, const std::string& call, const std::string& argument);

// A command line's --group and --block, read the one way for the coop tool and the Python
// package's commands: other groups live in --block (default 32); a block group's shape is
// its own, so a --block beside it, which would be ignored, is refused.
Group parse_group_flags(const std::string& group, const std::optional<std::string>& block, const std::string& call);

}  // namespace coop
