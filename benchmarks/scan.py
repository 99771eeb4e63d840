"""Time lrnn_core.core.scan.linear_scan against its peers and print a Markdown table.

python benchmarks/scan.py                       # sizes from LRNN_SCALE (default: book)
python benchmarks/scan.py --shapes 8x4096x256,64x784x512 --repeats 9
python benchmarks/scan.py --methods auto,chunked,lax.scan

On Linux, most of the time of a fresh output of tens of megabytes is the kernel's page faults
(see the performance appendix, "Where the time goes"); to measure with huge pages, as NumPy gets
for its own arrays, start the process with GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc >= 2.35).
"""

from __future__ import annotations

import argparse

from lrnn_core.bookkit.benchmark import NAMES, device_description, format_table, run_benchmark


def _shape(text: str) -> tuple[int, int, int]:
    parts = text.lower().replace(",", "x").split("x")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"shape must be BxLxN, got {text!r}")
    return tuple(int(p) for p in parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shapes", help="comma-separated BxLxN sizes (default: by LRNN_SCALE)")
    parser.add_argument("--repeats", type=int, help="timed calls per entry; the median is shown")
    parser.add_argument(
        "--methods",
        help=f"comma-separated subset of {', '.join(NAMES)} (numpy and stream always run)",
    )
    parser.add_argument("--dtype", default="complex64", choices=["complex64", "float32"])
    args = parser.parse_args(argv)
    shapes = None if args.shapes is None else [_shape(s) for s in args.shapes.split(",") if s]
    methods = (
        None if args.methods is None else [m.strip() for m in args.methods.split(",") if m.strip()]
    )
    print(f"device: {device_description()}")
    rows = run_benchmark(shapes, repeats=args.repeats, methods=methods, dtype=args.dtype)
    print(format_table(rows))


if __name__ == "__main__":
    main()
