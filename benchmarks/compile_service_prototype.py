"""Prototype for issue 12's cold start: how long a fresh process waits for a provider
bundle's NVRTC compile on its own, against asking a compile service that keeps one
NVRTC (and its automatic precompiled header, which cannot cross processes) alive
for every process on the machine, as sccache and Bazel's persistent workers do.
No GPU needed: NVRTC only.

    python3 benchmarks/compile_service_prototype.py --source BUNDLE.cu [--json OUT.json]

BUNDLE.cu is a bundle the engine generated (coop.explain(...).source, or
CUDA_COOP_SOURCE_DUMP_DIR). Each measurement runs in a fresh process:
  cold          NVRTC in the process itself, as the engine compiles a miss today
  service_first the service's first compile (it creates the PCH)
  service_next  a new client process asking for another bundle with the same
                headers (the int32 bundle rewritten for float): the PCH at work
Reported: wall seconds as the client sees them, and NVRTC's own seconds."""

from __future__ import annotations

import argparse
import base64
import json
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ARCH = "sm_90"


def nvrtc_options(cccl: str, cuda: str, pch: bool) -> list[bytes]:
    options = ["-std=c++17", "-rdc=true", "-dlto", f"-arch={ARCH}", f"-I{cccl}", f"-I{cuda}"]
    return [option.encode() for option in options + (["-pch"] if pch else [])]


def compile_ltoir(source: bytes, options: list[bytes]) -> tuple[bytes, float]:
    from cuda.bindings import nvrtc

    start = time.perf_counter()
    _, program = nvrtc.nvrtcCreateProgram(source, b"bundle.cu", 0, [], [])
    (status,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
    seconds = time.perf_counter() - start
    if status != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(program)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(program, log)
        raise RuntimeError(log.decode(errors="replace")[-2000:])
    _, size = nvrtc.nvrtcGetLTOIRSize(program)
    ltoir = b" " * size
    nvrtc.nvrtcGetLTOIR(program, ltoir)
    nvrtc.nvrtcDestroyProgram(program)
    return ltoir, seconds


def serve(path: str, cccl: str, cuda: str) -> None:
    """One NVRTC for every client: requests are compiled one at a time (NVRTC's PCH
    is per process), each answered with the LTO-IR and NVRTC's seconds."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen()
    options = nvrtc_options(cccl, cuda, pch=True)
    while True:
        connection, _ = server.accept()
        with connection:
            request = json.loads(_receive(connection))
            if request.get("stop"):
                return
            ltoir, seconds = compile_ltoir(request["source"].encode(), options)
            _send(connection, json.dumps({"ltoir": base64.b64encode(ltoir).decode(), "nvrtc_s": seconds}).encode())


def _send(connection, data: bytes) -> None:
    connection.sendall(len(data).to_bytes(8, "little") + data)


def _receive(connection) -> bytes:
    size = int.from_bytes(_exactly(connection, 8), "little")
    return _exactly(connection, size)


def _exactly(connection, size: int) -> bytes:
    chunks, left = [], size
    while left:
        chunk = connection.recv(min(left, 1 << 20))
        if not chunk:
            raise ConnectionError("service closed the connection")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def client(mode: str, path: str, source_file: str, cccl: str, cuda: str) -> dict:
    source = pathlib.Path(source_file).read_text()
    start = time.perf_counter()
    if mode == "cold":
        ltoir, nvrtc_s = compile_ltoir(source.encode(), nvrtc_options(cccl, cuda, pch=False))
    else:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(path)
        with connection:
            _send(connection, json.dumps({"source": source}).encode())
            answer = json.loads(_receive(connection))
        ltoir, nvrtc_s = base64.b64decode(answer["ltoir"]), answer["nvrtc_s"]
    return {"wall_s": time.perf_counter() - start, "nvrtc_s": nvrtc_s, "ltoir_bytes": len(ltoir)}


def float_variant(source: str) -> str:
    """The same headers, another body: what a second kernel of another process asks for."""
    head, _, body = source.partition("namespace coop_probe")
    return head + "namespace coop_probe" + body.replace("::cuda::std::int32_t", "float")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--source", required=True)
    parser.add_argument("--json", type=pathlib.Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cccl", default=os.environ.get("COOP_CCCL_INCLUDE", "/usr/local/cuda/include/cccl"))
    parser.add_argument("--cuda", default=os.environ.get("COOP_CUDA_INCLUDE", "/usr/local/cuda/include"))
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--client", help=argparse.SUPPRESS)
    parser.add_argument("--socket", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.cccl, args.cuda)
        return
    if args.client:
        print(json.dumps(client(args.client, args.socket, args.source, args.cccl, args.cuda)))
        return

    me = [sys.executable, os.path.abspath(__file__), "--cccl", args.cccl, "--cuda", args.cuda]

    def run_client(mode: str, source: str, path: str = "") -> dict:
        done = subprocess.run(
            [*me, "--client", mode, "--socket", path, "--source", source], check=True, capture_output=True, text=True
        )
        return json.loads(done.stdout)

    runs = []
    with tempfile.TemporaryDirectory() as work:
        variant = pathlib.Path(work) / "float_bundle.cu"
        variant.write_text(float_variant(pathlib.Path(args.source).read_text()))
        for index in range(args.repeat):
            cold = run_client("cold", args.source)
            path = str(pathlib.Path(work) / f"service{index}.sock")
            service = subprocess.Popen([*me, "--serve", path, "--source", args.source])
            while not os.path.exists(path):
                time.sleep(0.01)
            first = run_client("service", args.source, path)
            following = run_client("service", str(variant), path)
            stop = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            stop.connect(path)
            with stop:
                _send(stop, b'{"stop": true}')
            service.wait(timeout=60)
            runs.append({"cold": cold, "service_first": first, "service_next": following})
    summary = {
        name: {key: statistics.median(run[name][key] for run in runs) for key in runs[0][name]} for name in runs[0]
    }
    document = {"source": args.source, "arch": ARCH, "summary": summary, "runs": runs}
    if args.json:
        args.json.write_text(json.dumps(document, indent=1))
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
