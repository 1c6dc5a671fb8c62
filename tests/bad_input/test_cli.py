"""The coop command's bad inputs: each case is the argv after `coop`, run in a fresh
directory holding the files below, with the exit status and error kind the user sees
and the words the one line on stderr must hold. Most are refused before any compile;
the few that reach NVRTC share one cache directory, so a repeated bundle compiles once."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from catalogue import Case, ids
from runners import cpp_coop

COOP = cpp_coop()
if COOP is None:
    pytest.skip("coop is not on PATH", allow_module_level=True)

EXIT2 = "exit 2 InvalidArgumentError"
GROUP = "exit 2 InvalidGroupError"
UNSUPPORTED = "exit 2 UnsupportedOperationError"
SUPPORTED_ARCHS = "compiles for: sm_"
PERMISSION_CASES = {"output_in_a_read_only_directory"}

RUN_LENGTH = ["explain", "run_length_decode", "--group", "block:64", "--dtype", "int32", "--items", "2"]
RUN_LENGTH += ["--decoded-items-per-thread", "3", "--named-dtype", "LengthT=int32"]

CASES = [
    # A run-length decode's window offset is an index: a runtime one crosses as int64 or uint64, a
    # static one is 0..2^64 - 1.
    Case(
        "run_length_index_of_int32",
        EXIT2,
        ("'decoded_window_offset' = int32", "one of int64, uint64"),
        [*RUN_LENGTH, "--decoded-window-offset", "--named-dtype", "WindowOffsetT=int32"],
    ),
    Case(
        "run_length_negative_static_index",
        EXIT2,
        ("'decoded_window_offset' = -1", "an integer index >= 0 and <= 18446744073709551615"),
        [*RUN_LENGTH, "--decoded-window-offset", "-1"],
    ),
    # Item 3: link inputs that are not readable regular files.
    Case(
        "link_input_is_a_directory",
        EXIT2,
        ("argument 'input' = 'dir.ltoir' (a directory)", "a readable, non-empty regular file"),
        ["link", "dir.ltoir", "-o", "x.cubin"],
    ),
    Case(
        "link_input_missing", EXIT2, ("'input' = 'nope.ltoir' (no such file)",), ["link", "nope.ltoir", "-o", "x.cubin"]
    ),
    Case("link_input_empty", EXIT2, ("'input' = 'empty.ltoir' (empty)",), ["link", "empty.ltoir", "-o", "x.cubin"]),
    Case(
        "link_input_is_a_device",
        EXIT2,
        ("'input' = 'zero.ltoir' (not a regular file)",),
        ["link", "zero.ltoir", "-o", "x.cubin"],
    ),
    Case(
        "link_input_unknown_extension",
        EXIT2,
        ("'input' = 'notes.txt'", "a file ending in .ltoir, .cubin, .ptx, .fatbin or .o"),
        ["link", "notes.txt", "-o", "x.cubin"],
    ),
    Case(
        "link_output_is_an_input",
        EXIT2,
        ("argument '-o' = './garbage.ltoir'", "a file other than the inputs"),
        ["link", "garbage.ltoir", "-o", "./garbage.ltoir"],
    ),
    Case("link_output_empty", EXIT2, ("argument '-o' = ''", "a file path"), ["link", "garbage.ltoir", "-o", ""]),
    Case(
        "link_output_is_a_directory",
        EXIT2,
        ("'-o' = 'dir.ltoir' (a directory)",),
        ["link", "garbage.ltoir", "-o", "dir.ltoir"],
    ),
    Case("link_output_missing", EXIT2, ("argument '--output' is missing",), ["link", "garbage.ltoir"]),
    Case("link_without_inputs", EXIT2, ("argument 'inputs' is missing", ".ltoir"), ["link", "-o", "x.cubin"]),
    Case(
        "link_arch_unsupported",
        EXIT2,
        ("coop link: argument 'arch' = 'sm_999'", SUPPORTED_ARCHS, "sm_90"),
        ["link", "garbage.ltoir", "-o", "x.cubin", "--arch", "sm_999"],
    ),
    Case(
        "link_arch_malformed",
        EXIT2,
        ("argument 'arch' = 'compute_90'", "sm_<major><minor>"),
        ["link", "garbage.ltoir", "-o", "x.cubin", "--arch", "compute_90"],
    ),
    # Issue 22, item 4: inputs nvJitLink would drop without a word, or that are too large to read.
    Case(
        "link_cubin_for_another_arch",
        EXIT2,
        ("argument 'input' = 'sm80.cubin' (a cubin for sm_80)", "a cubin for sm_90", "pass PTX"),
        ["link", "sm80.cubin", "-o", "x.cubin", "--arch", "sm_90"],
    ),
    Case(
        "link_executable_cubin",
        EXIT2,
        ("argument 'input' = 'executable.cubin' (an executable cubin)", "nvcc -rdc=true -cubin"),
        ["link", "executable.cubin", "-o", "x.cubin", "--arch", "sm_90"],
    ),
    Case(
        "link_input_over_the_size_limit",
        EXIT2,
        ("argument 'input' = 'huge.ltoir' (3221225472 bytes)", "at most 2147483648 bytes (2 GiB)"),
        ["link", "huge.ltoir", "-o", "x.cubin"],
    ),
    Case(
        "link_input_not_device_code",
        "exit 1 LinkError",
        ("nvJitLink", "could not add garbage.ltoir"),
        ["link", "garbage.ltoir", "-o", "x.cubin"],
    ),
    # Item 16: static floats must be numbers the dtype holds (inf and nan included).
    Case(
        "float16_value_rounds_to_infinity",
        EXIT2,
        ("'oob_default' = 1e6", "largest finite 65504"),
        ["explain", "load", "--dtype", "float16", "--valid-items", "--oob-default", "1e6"],
    ),
    Case(
        "float32_hex_literal",
        EXIT2,
        ("'oob_default' = '0x10'", "a number for float32: decimal, inf, -inf or nan"),
        ["explain", "load", "--dtype", "float32", "--valid-items", "--oob-default", "0x10"],
    ),
    Case(
        "float64_nan_payload",
        EXIT2,
        ("'initial_value' = 'nan(1)'", "decimal, inf, -inf or nan"),
        ["explain", "exclusive_scan", "--dtype", "float64", "--scan-op", "max", "--initial-value", "nan(1)"],
    ),
    Case(
        "float64_out_of_range",
        EXIT2,
        ("'initial_value' = 1e400", "1.7977e308"),
        ["explain", "exclusive_scan", "--dtype", "float64", "--scan-op", "max", "--initial-value", "1e400"],
    ),
    Case(
        "bool_literal",
        EXIT2,
        ("'oob_default' = '2'", "true, false, 0 or 1"),
        ["explain", "load", "--dtype", "bool", "--valid-items", "--oob-default", "2"],
    ),
    # Item 17: sizes that make compiles explode or cannot launch.
    Case(
        "items_over_the_limit",
        EXIT2,
        ("'items_per_thread' = 513", "at most 512", "CUB unrolls over the items"),
        ["explain", "load", "--items", "513"],
    ),
    Case(
        "items_ten_thousand_transpose",
        EXIT2,
        ("'items_per_thread' = 10000", "at most 512"),
        ["explain", "load", "--items", "10000", "--algorithm", "transpose"],
    ),
    Case(
        "items_slow_warns",
        "exit 0 warning",
        ("items_per_thread 200 is above 128", "linking the kernel takes seconds"),
        ["explain", "load", "--items", "200"],
    ),
    Case(
        "scratch_over_shared_memory",
        EXIT2,
        ("argument 'scratch' = ", "bytes per block", "at most 232448 bytes (227 KiB)", "on sm_90"),
        ["compile", "load", "--group", "block:1024", "--dtype", "int64", "--items", "64", "--algorithm", "transpose"],
    ),
    # Item 18: tile capacity and offsets.
    Case(
        "items_overflow_the_tile",
        EXIT2,
        ("'items_per_thread' = 2147483647", "at most 512"),
        ["explain", "load", "--items", "2147483647", "--valid-items", "5"],
    ),
    Case(
        "items_beyond_int",
        EXIT2,
        ("argument '--items' = '99999999999'", "an integer from 1 to 512"),
        ["explain", "load", "--items", "99999999999"],
    ),
    Case(
        "offset_negative",
        EXIT2,
        ("'offset' = -5", "an integer element offset >= 0"),
        ["explain", "load", "--offset", "-5"],
    ),
    Case(
        "offset_negative_in_a_call",
        EXIT2,
        ("'offset' = -5", ">= 0"),
        ["compile", "load", "--call", "store --offset -5"],
    ),
    Case("offset_not_a_number", EXIT2, ("'offset' = 'five'",), ["explain", "load", "--offset", "five"]),
    Case(
        "valid_items_negative",
        EXIT2,
        ("'valid_items' = -1", "0..128 (the tile capacity"),
        ["explain", "load", "--valid-items", "-1"],
    ),
    Case(
        "valid_items_over_the_tile",
        EXIT2,
        ("'valid_items' = 129", "0..128"),
        ["explain", "load", "--valid-items", "129"],
    ),
    Case(
        "valid_items_beyond_int64",
        EXIT2,
        ("'valid_items' = '99999999999999999999'", "an integer 0..128"),
        ["explain", "load", "--valid-items", "99999999999999999999"],
    ),
    # Item 19: outputs.
    Case(
        "header_on_a_full_disk",
        EXIT2,
        ("argument '--header' = '/dev/full' (No space left on device)", "a writable file path"),
        ["compile", "load", "--header", "/dev/full"],
    ),
    Case("output_empty", EXIT2, ("argument '-o' = ''", "a file path"), ["compile", "load", "-o", ""]),
    Case("header_empty", EXIT2, ("argument '--header' = ''", "a file path"), ["compile", "load", "--header", ""]),
    Case(
        "header_same_as_output",
        EXIT2,
        ("argument '--header' = 'x.ltoir'", "a file other than -o's ('x.ltoir')"),
        ["compile", "load", "-o", "x.ltoir", "--header", "x.ltoir"],
    ),
    Case(
        "header_same_as_output_spelled_otherwise",
        EXIT2,
        ("'--header' = './x.ltoir'", "-o's ('x.ltoir')"),
        ["compile", "load", "-o", "x.ltoir", "--header", "./x.ltoir"],
    ),
    Case(
        "output_is_a_directory",
        EXIT2,
        ("'-o' = 'dir.ltoir' (a directory)", "not a directory"),
        ["compile", "load", "-o", "dir.ltoir"],
    ),
    Case(
        "output_in_a_missing_directory",
        EXIT2,
        ("'-o' = 'nodir/x.ltoir'", "there is no directory 'nodir'"),
        ["compile", "load", "-o", "nodir/x.ltoir"],
    ),
    Case(
        "output_in_a_read_only_directory",
        EXIT2,
        ("argument '-o' = 'readonly/x.ltoir' (Permission denied)", "a writable file path"),
        ["compile", "load", "-o", "readonly/x.ltoir"],
    ),
    Case("output_without_a_value", EXIT2, ("argument '--output' needs a value",), ["compile", "load", "-o"]),
    # Item 20: arches NVRTC cannot target.
    Case(
        "arch_unsupported",
        EXIT2,
        ("argument 'arch' = 'sm_999'", SUPPORTED_ARCHS, "sm_90"),
        ["compile", "load", "--arch", "sm_999"],
    ),
    Case("arch_too_old", EXIT2, ("argument 'arch' = 'sm_10'", SUPPORTED_ARCHS), ["compile", "load", "--arch", "sm_10"]),
    Case(
        "explain_for_an_arch_nvrtc_cannot_target",
        EXIT2,
        ("coop explain: argument 'arch' = 'sm_999'", SUPPORTED_ARCHS),
        ["explain", "load", "--arch", "sm_999"],
    ),
    Case(
        "arch_malformed",
        EXIT2,
        ("argument 'arch' = 'compute_90'", "sm_<major><minor>, e.g. sm_90"),
        ["compile", "load", "--arch", "compute_90"],
    ),
    Case("arch_one_digit", EXIT2, ("argument 'arch' = 'sm_9'",), ["explain", "load", "--arch", "sm_9"]),
    Case("arch_empty", EXIT2, ("argument 'arch' = ''",), ["compile", "load", "--arch", ""]),
    # Item 21: negative numbers are values of the option before them.
    Case(
        "minus_inf_for_an_integer_seed",
        EXIT2,
        ("'initial_value' = '-inf'", "an integer literal representable as int32"),
        ["explain", "exclusive_scan", "--scan-op", "max", "--initial-value", "-inf"],
    ),
    Case(
        "minus_one_for_uint8",
        EXIT2,
        ("'oob_default' = -1", "representable as uint8 (0..255)"),
        ["explain", "load", "--dtype", "uint8", "--valid-items", "--oob-default", "-1"],
    ),
    Case(
        "minus_nan_for_an_integer",
        EXIT2,
        ("'oob_default' = '-nan'",),
        ["explain", "load", "--dtype", "int16", "--valid-items", "--oob-default", "-nan"],
    ),
    Case(
        "source_lane_negative",
        EXIT2,
        ("'src_lane' = -1", "0..31 (a rank in the group)"),
        ["explain", "broadcast", "--group", "warp", "--scalar", "--src-lane", "-1"],
    ),
    Case(
        "negative_float_seed_in_a_call",
        EXIT2,
        ("'initial_value' = -1e6", "float16"),
        ["compile", "load", "--call", "exclusive_scan --dtype float16 --scan-op max --initial-value -1e6"],
    ),
    # The command line itself.
    Case(
        "no_subcommand",
        EXIT2,
        ("coop: a subcommand is missing", "expected one of: explain, compile, link, cache, doctor"),
        [],
    ),
    Case(
        "unknown_subcommand",
        EXIT2,
        ("argument 'subcommand' = 'frobnicate'", "explain, compile, link, cache, doctor"),
        ["frobnicate"],
    ),
    Case("unknown_option_before_subcommand", EXIT2, ("argument 'subcommand' = '--frob'",), ["--frob"]),
    Case(
        "unknown_cache_subcommand",
        EXIT2,
        ("coop cache: argument 'subcommand' = 'frob'", "expected one of: stats, clear"),
        ["cache", "frob"],
    ),
    Case("cache_without_subcommand", EXIT2, ("coop cache: a subcommand is missing", "stats, clear"), ["cache"]),
    Case("doctor_with_an_argument", EXIT2, ("coop doctor: unexpected argument 'extra'",), ["doctor", "extra"]),
    Case(
        "missing_operation",
        EXIT2,
        ("coop explain: argument 'operation' is missing", "load, store", "reduce", "radix_sort_keys"),
        ["explain"],
    ),
    Case(
        "unknown_operation",
        UNSUPPORTED,
        ("argument 'operation' = 'lod'", "expected one of: ", "load, store"),
        ["explain", "lod"],
    ),
    Case("empty_operation", UNSUPPORTED, ("coop explain: argument 'operation' = ''",), ["explain", ""]),
    Case("operation_with_a_line_break", UNSUPPORTED, ("argument 'operation' = 'lo\\nad'",), ["explain", "lo\nad"]),
    Case(
        "dtype_with_a_line_break",
        EXIT2,
        ("argument '--dtype' = 'int32\\nx'",),
        ["explain", "load", "--dtype", "int32\nx"],
    ),
    Case(
        "extra_positional",
        EXIT2,
        ("coop explain: unexpected argument 'extra'", "coop explain --help"),
        ["explain", "load", "extra"],
    ),
    Case("unknown_option", EXIT2, ("unexpected argument '--frob'",), ["explain", "load", "--frob"]),
    Case("json_on_explain", EXIT2, ("unexpected argument '--json'",), ["explain", "load", "--json"]),
    Case(
        "option_given_twice",
        EXIT2,
        ("argument '--dtype' is given more than once", "one value"),
        ["explain", "load", "--dtype", "int8", "--dtype", "int16"],
    ),
    Case(
        "group_without_value",
        EXIT2,
        ("argument '--group' needs a value", "block:X[,Y[,Z]]"),
        ["explain", "load", "--group"],
    ),
    Case("dtype_without_value", EXIT2, ("argument '--dtype' needs a value", "int32"), ["explain", "load", "--dtype"]),
    Case(
        "dtype_unknown",
        EXIT2,
        ("argument '--dtype' = 'int33'", "one of: bool, int8"),
        ["explain", "load", "--dtype", "int33"],
    ),
    Case("dtype_empty", EXIT2, ("argument '--dtype' = ''",), ["explain", "load", "--dtype", ""]),
    Case("dtype_wrong_case", EXIT2, ("argument '--dtype' = 'Float32'",), ["explain", "load", "--dtype", "Float32"]),
    Case(
        "group_block_zero",
        GROUP,
        ("argument 'block' = (0,1,1)", "every dimension >= 1"),
        ["explain", "load", "--group", "block:0"],
    ),
    Case(
        "group_four_dimensions",
        EXIT2,
        ("argument 'group' = '32,4,2,1'", "X[,Y[,Z]]"),
        ["explain", "load", "--group", "block:32,4,2,1"],
    ),
    Case(
        "group_too_many_threads",
        GROUP,
        ("(2048 threads)", "at most 1024 threads"),
        ["explain", "load", "--group", "block:32,32,2"],
    ),
    Case(
        "group_dimension_beyond_int",
        EXIT2,
        ("argument 'group' = '99999999999'", "at most 1024 threads"),
        ["explain", "load", "--group", "block:99999999999"],
    ),
    Case(
        "group_empty",
        EXIT2,
        ("argument 'group' = ''", "block:X[,Y[,Z]], warp, warp:N, warps:N or cluster:N"),
        ["explain", "load", "--group", ""],
    ),
    Case("group_unknown_kind", EXIT2, ("argument 'group' = 'blk:4'",), ["explain", "load", "--group", "blk:4"]),
    Case("group_empty_dimension", EXIT2, ("argument 'group' = '1,,2'",), ["explain", "load", "--group", "block:1,,2"]),
    Case(
        "warp_width_three",
        GROUP,
        ("argument 'warp width' = 3", "a power of two from 1 to 32"),
        ["explain", "load", "--group", "warp:3", "--block", "64"],
    ),
    Case(
        "warp_width_beyond_int",
        EXIT2,
        ("argument 'group' = 'warp:99999999999'", "a power of two from 1 to 32"),
        ["explain", "load", "--group", "warp:99999999999", "--block", "64"],
    ),
    Case(
        "warp_in_a_block_of_33",
        GROUP,
        ("'block' = (33,1,1) (33 threads)", "whole warps"),
        ["explain", "load", "--group", "warp", "--block", "33"],
    ),
    Case(
        "block_with_a_block_group",
        EXIT2,
        ("argument '--block' = '64'", "no --block with a block group"),
        ["explain", "load", "--group", "block:64", "--block", "64"],
    ),
    Case("block_empty", EXIT2, ("argument '--block' = ''",), ["explain", "load", "--group", "warp", "--block", ""]),
    Case("items_zero", EXIT2, ("'items_per_thread' = 0", ">= 1"), ["explain", "load", "--items", "0"]),
    Case("items_empty", EXIT2, ("argument '--items' = ''",), ["explain", "load", "--items", ""]),
    Case("items_text", EXIT2, ("argument '--items' = 'many'",), ["explain", "load", "--items", "many"]),
    Case("items_hexadecimal", EXIT2, ("argument '--items' = '0x10'",), ["explain", "load", "--items", "0x10"]),
    Case(
        "call_garbage",
        UNSUPPORTED,
        ("coop compile --call: argument 'operation' = 'garbage'",),
        ["compile", "load", "--call", "garbage"],
    ),
    Case("call_empty", EXIT2, ("argument '--call' = ''", "a call description"), ["compile", "load", "--call", ""]),
    Case(
        "call_unknown_option",
        EXIT2,
        ("argument '--call' = 'load --frob'", "--frob"),
        ["compile", "load", "--call", "load --frob"],
    ),
    Case(
        "call_inside_a_call",
        EXIT2,
        ("argument '--call' = 'load --call x'",),
        ["compile", "load", "--call", "load --call x"],
    ),
    Case(
        "call_unmatched_quote",
        EXIT2,
        ("argument '--call'", "balanced quotes"),
        ["compile", "load", "--call", 'load --group "block:32'],
    ),
    Case(
        "algorithm_unknown",
        UNSUPPORTED,
        ("argument 'algorithm' = 'blocked'", "direct, striped"),
        ["explain", "load", "--algorithm", "blocked"],
    ),
    Case(
        "algorithm_on_a_warp",
        UNSUPPORTED,
        ("'algorithm' = 'direct'", "one implementation"),
        ["explain", "reduce", "--group", "warp", "--binary-op", "sum", "--algorithm", "direct"],
    ),
    Case(
        "operator_unknown",
        EXIT2,
        ("argument 'binary_op' = 'median'", "user:<symbol>"),
        ["explain", "reduce", "--binary-op", "median"],
    ),
    Case(
        "scan_operator_unknown",
        EXIT2,
        ("argument 'scan_op' = 'median'", "user:<symbol>"),
        ["explain", "inclusive_scan", "--scan-op", "median"],
    ),
    Case(
        "operator_user_symbol_not_an_identifier",
        EXIT2,
        ("argument 'binary_op' = 'user:1x'", "a C identifier"),
        ["explain", "reduce", "--binary-op", "user:1x"],
    ),
    # Item 22.6: a user symbol the generated source cannot declare fails before NVRTC, naming why.
    Case(
        "operator_user_symbol_reserved",
        EXIT2,
        ("'binary_op' = 'user:__global__' (a name reserved to the compiler and its headers)", "no '__'"),
        ["explain", "reduce", "--binary-op", "user:__global__"],
    ),
    Case(
        "operator_user_symbol_main",
        EXIT2,
        ("'binary_op' = 'user:main' (main, which no device function may be called)", "not main"),
        ["explain", "reduce", "--binary-op", "user:main"],
    ),
    Case(
        "operator_user_symbol_keyword",
        EXIT2,
        ("'scan_op' = 'user:return' (a C++ keyword)",),
        ["explain", "inclusive_scan", "--scan-op", "user:return"],
    ),
    Case(
        "operator_user_symbol_a_namespace_of_the_source",
        EXIT2,
        ("'binary_op' = 'user:cub' (a namespace the generated source uses)",),
        ["compile", "reduce", "--binary-op", "user:cub"],
    ),
    Case(
        "operator_user_symbol_leading_underscore",
        EXIT2,
        ("'binary_op' = 'user:_op' (a name reserved", "no leading '_'"),
        ["explain", "reduce", "--binary-op", "user:_op"],
    ),
    # Item 22.5: no silent result.
    Case(
        "offset_overflowing_pointer_arithmetic",
        EXIT2,
        ("'offset' = 9223372036854775807 is not allowed", "<= 2305843009213693823", "64-bit pointer offset"),
        ["explain", "load", "--offset", "9223372036854775807"],
    ),
    Case(
        "offset_overflowing_in_a_call",
        EXIT2,
        ("store: argument 'offset' = 9223372036854775807", "<= 2305843009213693823"),
        ["compile", "load", "--call", "store --offset 9223372036854775807"],
    ),
    Case(
        "offset_of_float64_past_the_last_addressable_tile",
        EXIT2,
        ("'offset' = 1152921504606846464", "<= 1152921504606846463", "x 8 bytes in"),
        ["explain", "load", "--dtype", "float64", "--items", "4", "--offset", "1152921504606846464"],
    ),
    Case(
        "strided_view_of_zero_dimensions",
        UNSUPPORTED,
        ("'source' = a view of 0 dimensions", "1 to 8 dimensions"),
        ["explain", "load", "--strided-view", "0"],
    ),
    Case(
        "strided_view_of_negative_dimensions",
        UNSUPPORTED,
        ("'source' = a view of -1 dimensions", "1 to 8 dimensions"),
        ["explain", "load", "--strided-view", "-1"],
    ),
    Case(
        "strided_view_of_too_many_dimensions",
        UNSUPPORTED,
        ("'destination' = a view of 99 dimensions", "1 to 8 dimensions"),
        ["explain", "store", "--strided-view", "99"],
    ),
    Case(
        "option_of_another_operation",
        EXIT2,
        ("argument 'binary_op' = given", "one of the options of load"),
        ["explain", "load", "--binary-op", "sum"],
    ),
    Case(
        "scan_operator_on_a_reduction",
        EXIT2,
        ("argument 'scan_op' = given", "one of the options of reduce"),
        ["explain", "reduce", "--scan-op", "max"],
    ),
    # An exclusive scan of another operator than the sum needs its seed; an inclusive scan takes none.
    Case(
        "exclusive_scan_of_another_operator_without_a_seed",
        EXIT2,
        ("argument 'initial_value' = omitted", "initial_value or prefix_op"),
        ["explain", "exclusive_scan", "--scan-op", "max"],
    ),
    Case(
        "exclusive_mode_scan_without_a_seed",
        EXIT2,
        ("argument 'initial_value' = omitted", "mode 'exclusive'"),
        ["explain", "scan", "--mode", "exclusive", "--scan-op", "min"],
    ),
    Case(
        "inclusive_scan_given_a_seed",
        EXIT2,
        ("argument 'initial_value' = given", "one of the options of inclusive_scan"),
        ["explain", "inclusive_scan", "--scan-op", "max", "--initial-value", "0"],
    ),
    Case(
        "inclusive_mode_scan_given_a_seed",
        EXIT2,
        ("argument 'initial_value' = given", "mode 'inclusive'"),
        ["explain", "scan", "--mode", "inclusive", "--initial-value", "0"],
    ),
    Case(
        "scan_mode_unknown",
        EXIT2,
        ("argument 'mode' = 'prefix' is not allowed", "one of: exclusive, inclusive"),
        ["explain", "scan", "--mode", "prefix"],
    ),
    # The options the seed's API renamed or removed.
    Case(
        "old_block_aggregate_option",
        EXIT2,
        ("argument '--opt' = 'block_aggregate' is not allowed", "aggregate_output"),
        ["explain", "inclusive_sum", "--opt", "block_aggregate"],
    ),
    Case(
        "old_output_option",
        EXIT2,
        ("argument '--opt' = 'output' is not allowed",),
        ["explain", "exclusive_sum", "--opt", "output"],
    ),
    Case(
        "old_op_option",
        EXIT2,
        ("argument '--opt' = 'op=max' is not allowed", "binary_op", "scan_op"),
        ["explain", "reduce", "--opt", "op=max"],
    ),
    Case(
        "scalar_with_items",
        EXIT2,
        ("'items_per_thread' = 2", "1 for a scalar payload"),
        ["explain", "sum", "--scalar", "--items", "2"],
    ),
]


@pytest.fixture(scope="module")
def cache_home(tmp_path_factory):
    return tmp_path_factory.mktemp("xdg_cache")


NVCC = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "nvcc")


@pytest.fixture(scope="module")
def cubins(tmp_path_factory):
    """Real cubins nvcc builds: relocatable for sm_80, and executable (no -rdc) for sm_90."""
    if not os.path.exists(NVCC):
        return None
    directory = tmp_path_factory.mktemp("cubins")
    (directory / "kernel.cu").write_text('extern "C" __global__ void scale(float* x) { x[threadIdx.x] *= 2; }\n')
    for name, flags in (("sm80.cubin", ["-arch=sm_80", "-rdc=true"]), ("executable.cubin", ["-arch=sm_90"])):
        subprocess.run([NVCC, *flags, "-cubin", "kernel.cu", "-o", name], cwd=directory, check=True, timeout=120)
    return directory


@pytest.fixture
def workdir(tmp_path, cubins):
    """The files the cases name: a directory, an empty file, bytes that are no device code, a device,
    cubins nvcc built, and a sparse file over the input size limit."""
    for name in ("sm80.cubin", "executable.cubin") if cubins else ():
        shutil.copy(cubins / name, tmp_path / name)
    with open(tmp_path / "huge.ltoir", "wb") as huge:
        huge.truncate(3 << 30)  # sparse: 3 GiB that take no disk and no time
    (tmp_path / "dir.ltoir").mkdir()
    (tmp_path / "empty.ltoir").touch()
    (tmp_path / "garbage.ltoir").write_bytes(b"not device code\n")
    (tmp_path / "notes.txt").write_text("notes\n")
    (tmp_path / "zero.ltoir").symlink_to("/dev/zero")
    (tmp_path / "readonly").mkdir(mode=0o555)
    return tmp_path


# Root may write anywhere: file permissions cannot refuse it an output.
RUNNABLE = [case for case in CASES if not (case.name in PERMISSION_CASES and os.geteuid() == 0)]


@pytest.mark.parametrize("case", RUNNABLE, ids=ids(RUNNABLE))
def test_cli_bad_input(case, workdir, cache_home):
    if any(argument.endswith(".cubin") and not (workdir / argument).exists() for argument in case.detail[1:2]):
        pytest.skip(f"no nvcc at {NVCC} to build {case.detail[1]}")
    status, kind = case.error.split()[1:3]
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache_home)}
    environment.pop("CUDA_COOP_ENABLE_CACHE", None)
    result = subprocess.run(
        [COOP, *case.detail], check=False, cwd=workdir, env=environment, capture_output=True, text=True, timeout=120
    )
    assert result.returncode >= 0, f"coop died of signal {-result.returncode}:\n{result.stderr}"
    assert result.returncode == int(status), result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    if kind == "warning":
        assert any(line.startswith("cuda.coop: warning: ") for line in lines), result.stderr
    else:
        assert lines and lines[0].startswith(f"coop: {kind}: "), result.stderr
    if status == "2":
        assert len(lines) == 1, f"argument errors are one line:\n{result.stderr}"
    case.check(result.stderr)
