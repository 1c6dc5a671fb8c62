#include "coop/group.hpp"

#include <charconv>
#include <vector>

#include "coop/error.hpp"

namespace coop {

Group Group::this_block(Dim3 block) { return Group{GroupKind::Block, block, kWarpThreads}; }

Group Group::this_warp(Dim3 block, int width) { return Group{GroupKind::Warp, block, width}; }

Group Group::warps_of(Dim3 block, int warps) { return Group{GroupKind::Warps, block, warps * kWarpThreads}; }

Group Group::cluster_of(Dim3 block, int blocks) {
  return Group{GroupKind::Cluster, block, static_cast<int>(block.count() * blocks)};
}

int Group::threads() const { return kind == GroupKind::Block ? static_cast<int>(block.count()) : width; }

int Group::instances() const {
  if (kind == GroupKind::Block || kind == GroupKind::Cluster) return 1;
  return static_cast<int>(block.count() / width);
}

int Group::cluster_blocks() const { return kind == GroupKind::Cluster ? static_cast<int>(width / block.count()) : 1; }

static std::string dims(const Dim3& block) {
  return "(" + std::to_string(block.x) + "," + std::to_string(block.y) + "," + std::to_string(block.z) + ")";
}

std::string Group::describe() const {
  if (kind == GroupKind::Block) return "block" + dims(block);
  if (kind == GroupKind::Cluster) return "cluster of " + std::to_string(cluster_blocks()) + " x block" + dims(block);
  if (kind == GroupKind::Warps) {
    const int warps = width / kWarpThreads;
    return std::to_string(warps) + (warps == 1 ? " warp" : " warps") + " in block" + dims(block);
  }
  return "warp(" + std::to_string(width) + " lanes) in block" + dims(block);
}

const char* to_string(GroupKind kind) {
  switch (kind) {
    case GroupKind::Block:
      return "block";
    case GroupKind::Warp:
      return "warp";
    case GroupKind::Warps:
      return "warps";
    case GroupKind::Cluster:
      return "cluster";
  }
  return "?";
}

void validate(const Group& group, const std::string& call) {
  const Dim3& block = group.block;
  if (block.x < 1 || block.y < 1 || block.z < 1) {
    reject(ErrorKind::InvalidGroup, call, "block", dims(block), "every dimension >= 1");
  }
  if (block.x > kMaxBlockThreads || block.y > kMaxBlockThreads || block.z > 64 || block.count() > kMaxBlockThreads) {
    reject(ErrorKind::InvalidGroup, call, "block", dims(block) + " (" + std::to_string(block.count()) + " threads)",
           "at most 1024 threads (x, y <= 1024, z <= 64)");
  }
  if (group.kind == GroupKind::Block) return;
  if (group.kind == GroupKind::Cluster) {
    const int blocks = group.cluster_blocks();
    if (blocks < 1 || blocks > kMaxClusterBlocks || group.width != block.count() * blocks) {
      reject(ErrorKind::InvalidGroup, call, "blocks per cluster", std::to_string(blocks),
             "1 to " + std::to_string(kMaxClusterBlocks) + ", the portable cluster sizes");
    }
    return;
  }
  if (block.count() % kWarpThreads != 0) {
    reject(ErrorKind::InvalidGroup, call, "block", dims(block) + " (" + std::to_string(block.count()) + " threads)",
           std::string("whole warps (a multiple of 32 threads) for a ") + to_string(group.kind) + " group");
  }
  if (group.kind == GroupKind::Warps) {
    const long long block_warps = block.count() / kWarpThreads;
    const int warps = group.width / kWarpThreads;
    if (group.width % kWarpThreads != 0 || warps < 1 || warps > block_warps) {
      reject(ErrorKind::InvalidGroup, call, "warps per group",
             std::to_string(warps) + " (" + std::to_string(group.width) + " threads)",
             "1 to " + std::to_string(block_warps) + ", the warps of block" + dims(block));
    }
    if (warps > 1 && group.instances() > kMaxWarpsGroups) {
      reject(ErrorKind::InvalidGroup, call, "warps per group",
             std::to_string(warps) + " (" + std::to_string(group.instances()) + " groups in block" + dims(block) + ")",
             "at most " + std::to_string(kMaxWarpsGroups) +
                 " groups of more than one warp in a block: each waits on a hardware named barrier of its own, and "
                 "a block has 15 besides __syncthreads'; group more warps, or use one warp per group");
    }
    return;
  }
  const int width = group.width;
  if (width < 1 || width > kWarpThreads || (width & (width - 1)) != 0) {
    reject(ErrorKind::InvalidGroup, call, "warp width", std::to_string(width), "a power of two from 1 to 32");
  }
}

static int parse_positive(std::string_view text, const std::string& call, const std::string& argument,
                          const std::string& whole,
                          const std::string& expected = "integers such as 128 or 32,4,1 (at most 1024 threads)") {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    reject(ErrorKind::InvalidArgument, call, argument, "'" + whole + "'", expected);
  }
  return value;
}

Dim3 parse_dim3(const std::string& text, const std::string& call, const std::string& argument) {
  std::vector<int> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::size_t end = comma == std::string::npos ? text.size() : comma;
    values.push_back(parse_positive(std::string_view(text).substr(start, end - start), call, argument, text));
    start = end + 1;
  }
  if (values.empty() || values.size() > 3) {
    reject(ErrorKind::InvalidArgument, call, argument, "'" + text + "'", "X[,Y[,Z]]");
  }
  values.resize(3, 1);
  return Dim3{values[0], values[1], values[2]};
}

Group parse_group(const std::string& text, Dim3 block, const std::string& call) {
  const std::string expected = "block:X[,Y[,Z]], warp, warp:N, warps:N or cluster:N";
  const std::size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
  if (kind == "block" && !rest.empty()) return Group::this_block(parse_dim3(rest, call, "group"));
  if (kind == "warp" && colon == std::string::npos) return Group::this_warp(block);
  if (kind == "warp" && !rest.empty()) {
    return Group::this_warp(block, parse_positive(rest, call, "group", text, "warp:N, N a power of two from 1 to 32"));
  }
  if (kind == "warps" && !rest.empty()) {
    return Group::warps_of(block, parse_positive(rest, call, "group", text, "warps:N, N warps of the block per group"));
  }
  if (kind == "cluster" && !rest.empty()) {
    return Group::cluster_of(block,
                             parse_positive(rest, call, "group", text, "cluster:N, N blocks of --block per cluster"));
  }
  reject(ErrorKind::InvalidArgument, call, "group", "'" + text + "'", expected);
}

Group parse_group_flags(const std::string& group, const std::optional<std::string>& block, const std::string& call) {
  const Group parsed = parse_group(group, parse_dim3(block.value_or("32"), call, "--block"), call);
  if (parsed.kind == GroupKind::Block && block) {
    reject(ErrorKind::InvalidArgument, call, "--block", "'" + *block + "'",
           "no --block with a block group: its shape is the one in --group (" + group +
               "); --block is the block holding a warp group");
  }
  return parsed;
}

}  // namespace coop
