"""Let llama.cpp's Vulkan backend compile against older Vulkan headers (Debian 12 ships 1.3.239).

ggml-vulkan.cpp guards every newer extension it uses with `#if defined(VK_...)` except
VK_EXT_layer_settings (headers 1.3.261+), which it only needs when GGML_VULKAN_VALIDATE turns
the validation layer on. This wraps that one block in the same kind of guard; on newer headers
the patched source compiles exactly as before.

Usage: patch_vulkan_headers.py LLAMA_CPP_PYTHON_SOURCE_DIR   (idempotent)
"""

import sys
from pathlib import Path

SOURCE = Path("vendor/llama.cpp/ggml/src/ggml-vulkan/ggml-vulkan.cpp")
BEGIN = "    std::vector<vk::LayerSettingEXT> settings = {"
CREATE = ("    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers,"
          " extensions, &layer_setting_info);\n")
GUARD = "#if defined(VK_EXT_layer_settings)\n"
FALLBACK = ("#else\n"
            "    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers,"
            " extensions);\n"
            "#endif\n")


def patch(text: str) -> str:
    """The source with the layer-settings block guarded; unchanged if already patched."""
    if GUARD + BEGIN in text:
        return text
    start, end = text.find(BEGIN), text.find(CREATE)
    if start < 0 or end < start:
        raise ValueError("the layer-settings block is not where this script expects it: "
                         "check whether this llama.cpp version still needs the patch")
    end += len(CREATE)
    return text[:start] + GUARD + text[start:end] + FALLBACK + text[end:]


def main() -> None:
    path = Path(sys.argv[1]) / SOURCE
    path.write_text(patch(path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"patched {path}")


if __name__ == "__main__":
    main()
