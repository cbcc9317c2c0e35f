"""The native fast path (``dominolab.native._engine``), a C extension built when a C compiler
is there. It is optional: without a compiler the build prints a warning, the package still
installs, and everything runs on the pure-Python path (``dominolab --version`` says which).
Everything else about the package is in pyproject.toml."""

from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
SOURCES = sorted(str(p.relative_to(HERE)) for p in (HERE / "src/dominolab/native/csrc").glob("*.c"))

setup(
    ext_modules=[
        Extension(
            "dominolab.native._engine",
            sources=SOURCES,
            depends=sorted(str(p.relative_to(HERE))
                           for p in (HERE / "src/dominolab/native/csrc").glob("*.h")),
            extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter"],
            optional=True,
        )
    ],
)
