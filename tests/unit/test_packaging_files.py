"""The Windows and macOS packaging files, checked as far as Linux can: nothing here runs Inno Setup,
codesign or notarytool (packaging/README.md says so), but every file they read must parse, exist and
say what the release needs."""

import plistlib
import re
import struct
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
ICONS = ROOT / "resources" / "icons"


def test_entitlements_grant_the_hardened_runtime_only_what_ctypes_needs():
    entitlements = plistlib.loads((PACKAGING / "macos" / "entitlements.plist").read_bytes())
    assert entitlements == {"com.apple.security.cs.allow-unsigned-executable-memory": True}


def test_the_info_plist_is_valid_and_the_spec_adds_the_version():
    info = plistlib.loads((PACKAGING / "macos" / "Info.plist").read_bytes())
    assert info["CFBundleName"] == "Engram" and info["NSHighResolutionCapable"] is True
    assert re.fullmatch(r"\d+\.\d+", info["LSMinimumSystemVersion"])
    spec = (PACKAGING / "engram.spec").read_text()
    assert 'version=version' in spec and '"CFBundleVersion": version' in spec
    assert "engram.icns" in spec


def test_macos_signing_goes_inside_out_without_deep():
    script = (PACKAGING / "macos" / "build_macos.sh").read_text()
    signing = [line for line in script.splitlines() if "codesign" in line and not line.lstrip().startswith("#")]
    assert signing and not any("--deep" in line for line in signing)
    assert "--options runtime" in script and "--timestamp" in script
    inner, app = script.index('sign "$file"'), script.index('sign --entitlements "$ENTITLEMENTS" "$APP"\n')
    assert inner < app < script.index("notarytool submit")
    assert "ditto -c -k --keepParent" in script and "--keychain-profile" in script
    assert script.count("stapler staple") == 2         # the app, then the dmg


@pytest.mark.parametrize("script", ["build_linux.sh", "check_first_start.sh", "appimage_runtime.sh", "AppRun",
                                    "macos/build_macos.sh", "check_vulkan.sh"])
def test_shell_scripts_parse(script):
    subprocess.run(["bash", "-n", str(PACKAGING / script)], check=True)


def _iss() -> tuple[dict[str, dict[str, str]], dict[str, list[str]], str]:
    """The .iss's #defines, its sections' lines, and its text."""
    text = (PACKAGING / "windows" / "engram.iss").read_text()
    defines = dict(re.findall(r'#define (\w+) "([^"]*)"', text))
    sections: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        if (header := re.fullmatch(r"\[(\w+)\]", line)) is not None:
            current = sections.setdefault(header.group(1), [])
        elif line and not line.startswith((";", "#")) and current is not None:
            current.append(line)
    return defines, sections, text


def _setup(sections) -> dict[str, str]:
    return dict(line.split("=", 1) for line in sections["Setup"] if "=" in line)


def test_the_inno_setup_script_installs_per_user_with_a_start_menu_entry():
    defines, sections, _ = _iss()
    assert {"Setup", "Languages", "Files", "Icons"} <= set(sections)
    setup = _setup(sections)
    assert setup["PrivilegesRequired"] == "lowest" and setup["DefaultDirName"].startswith("{autopf}")
    assert setup["ArchitecturesInstallIn64BitMode"] == "x64compatible"
    assert re.fullmatch(r"\{\{[0-9A-F-]{36}\}", setup["AppId"])
    start_menu = [line for line in sections["Icons"] if line.startswith('Name: "{autoprograms}')]
    assert start_menu and 'Filename: "{app}\\engramw.exe"' in start_menu[0]
    assert 'name="engramw", console=False' in (PACKAGING / "engram.spec").read_text()   # the spec makes it


def test_the_files_the_inno_setup_script_names_exist():
    defines, sections, _ = _iss()
    here = PACKAGING / "windows"
    setup = _setup(sections)
    assert (here / setup["SetupIconFile"].replace("\\", "/")).resolve() == ICONS / "engram.ico"
    assert (here / defines["Bundle"].replace("\\", "/")).resolve() == ROOT / "dist" / "engram"   # PyInstaller's output
    assert (here / setup["OutputDir"].replace("\\", "/")).resolve() == ROOT / "dist"
    assert all('"compiler:' in line for line in sections["Languages"])


def test_windows_build_bundles_the_msvc_and_openmp_runtimes():
    script = (PACKAGING / "windows" / "build_windows.ps1").read_text()
    for dll in ("msvcp140.dll", "vcruntime140.dll", "vcruntime140_1.dll", "vcomp140.dll"):
        assert f'"{dll}"' in script
    assert "Microsoft.VC143.OpenMP" in script and "engram.iss" in script


def test_the_ico_holds_every_size_windows_asks_for():
    data = (ICONS / "engram.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = {data[6 + 16 * i] or 256 for i in range(count)}
    assert {16, 24, 32, 48, 256} <= sizes


def test_the_icns_is_whole_and_has_the_retina_sizes():
    data = (ICONS / "engram.icns").read_bytes()
    assert data[:4] == b"icns" and struct.unpack(">I", data[4:8])[0] == len(data)
    kinds, offset = set(), 8
    while offset < len(data):
        kind, length = data[offset:offset + 4], struct.unpack(">I", data[offset + 4:offset + 8])[0]
        kinds.add(kind)
        offset += length
    assert offset == len(data)
    assert {b"ic10", b"ic09", b"ic08"} <= kinds           # 1024 (512@2x), 512 and 256 pixels


LAYER_SETTINGS = """    VkBool32 enable_best_practice = layer_settings;
    std::vector<vk::LayerSettingEXT> settings = {
        {"VK_LAYER_KHRONOS_validation", "validate_best_practices", vk::LayerSettingTypeEXT::eBool32, 1, &x},
    };
    vk::LayerSettingsCreateInfoEXT layer_setting_info(settings);
    vk::InstanceCreateInfo instance_create_info(vk::InstanceCreateFlags{}, &app_info, layers, extensions, &layer_setting_info);
#ifdef __APPLE__
"""


def test_the_vulkan_header_patch_guards_the_layer_settings_once_and_says_when_it_no_longer_fits():
    import importlib.util

    spec = importlib.util.spec_from_file_location("patch_vulkan_headers", PACKAGING / "patch_vulkan_headers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    patched = module.patch(LAYER_SETTINGS)
    assert patched.index("#if defined(VK_EXT_layer_settings)") < patched.index("vk::LayerSettingEXT")
    assert patched.index("#else") > patched.index("&layer_setting_info);")
    assert "layers, extensions);\n#endif\n#ifdef __APPLE__" in patched
    assert module.patch(patched) == patched                                    # twice: the same
    with pytest.raises(ValueError, match="still needs the patch"):
        module.patch("int main() {}")


def test_the_build_scripts_name_their_gpu_backends():
    assert "-DGGML_METAL=$METAL" in (PACKAGING / "macos" / "build_macos.sh").read_text()
    linux = (PACKAGING / "build_linux.sh").read_text()
    assert "-DGGML_VULKAN=ON" in linux and 'DEPENDS_GPU=", libvulkan1"' in linux
    windows = (PACKAGING / "windows" / "build_windows.ps1").read_text()
    assert "-DGGML_VULKAN=ON" in windows and "-DGGML_CUDA=ON" in windows
