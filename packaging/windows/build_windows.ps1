# Build Engram for Windows: dist\engram\ (PyInstaller) and dist\Engram-<version>-setup.exe (Inno Setup).
# Not run by the project (no Windows machine here); written to run unchanged on Windows 10/11 x64 with:
#   - Python 3.11+ from python.org (64-bit), CMake, and Visual Studio 2022 (or its Build Tools) with
#     the "Desktop development with C++" workload: it compiles llama.cpp and holds the runtimes below;
#   - Inno Setup 6.3 or newer (iscc.exe in its default folder, or on PATH);
#   - optionally, for signing: signtool (Windows SDK) on PATH and a code-signing certificate, named by
#     $env:SIGN_CERT_SHA1 (its thumbprint, in the certificate store). Unsigned builds work, but
#     SmartScreen warns on download.
# Run from any folder:  powershell -ExecutionPolicy Bypass -File packaging\windows\build_windows.ps1
$ErrorActionPreference = "Stop"
$Root = Resolve-Path "$PSScriptRoot\..\.."
Set-Location $Root
$Venv = "$Root\build\windows\venv$env:ENGRAM_GPU"
$Py = "$Venv\Scripts\python.exe"

# 1. The build environment (llama.cpp compiles with MSVC; GGML_NATIVE=OFF runs on every x64 CPU).
#    $env:ENGRAM_GPU picks a GPU backend (the app offloads to it with chat_gpu_layers auto; without a
#    device it runs on the CPU). Untested on Windows by the project (no Windows machine here):
#      vulkan: any recent AMD, Intel or NVIDIA GPU; needs the Vulkan SDK (VULKAN_SDK set, glslc in it),
#              and the person's GPU driver brings vulkan-1.dll;
#      cuda:   NVIDIA only; needs the CUDA Toolkit, and the bundle must carry its cudart/cublas DLLs
#              (or the person installs the toolkit's runtime).
#    Unset: the CPU build.
if (-not (Test-Path "$Venv\.installed")) {
    py -3 -m venv $Venv
    & $Py -m pip install --quiet --upgrade pip
    $Backend = @{ "" = ""; "vulkan" = " -DGGML_VULKAN=ON"; "cuda" = " -DGGML_CUDA=ON" }["$env:ENGRAM_GPU"]
    if ($null -eq $Backend) { throw "ENGRAM_GPU must be vulkan, cuda or unset, not $env:ENGRAM_GPU" }
    $env:CMAKE_ARGS = "-DGGML_NATIVE=OFF$Backend"
    & $Py -m pip install --quiet "$Root" "pyinstaller>=6.10"
    if ($LASTEXITCODE) { throw "pip install failed" }
    New-Item "$Venv\.installed" -ItemType File | Out-Null
}
$Version = & $Py -c "import tomllib; print(tomllib.load(open('pyproject.toml', 'rb'))['project']['version'])"

# 2. The folder: dist\engram\engram.exe (console, for the commands) and engramw.exe (the window).
& "$Venv\Scripts\pyinstaller.exe" --noconfirm --clean --log-level WARN --distpath "$Root\dist" `
    --workpath "$Root\build\windows\pyinstaller" packaging\engram.spec
if ($LASTEXITCODE) { throw "PyInstaller failed" }
$Bundle = "$Root\dist\engram"

# 3. The MSVC runtimes llama.cpp's DLLs need: msvcp140 (C++), vcruntime140(_1) and vcomp140
#    (OpenMP, which MSVC builds of ggml use for threads). Windows does not always have them, so they
#    go beside llama.dll, where Windows looks first for the DLLs a DLL needs.
$VsWhere = "${env:ProgramFiles(x86)}\Microsoft Visual Studio\Installer\vswhere.exe"
$Vs = & $VsWhere -latest -products * -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -property installationPath
$Redist = Get-ChildItem "$Vs\VC\Redist\MSVC\*\x64" -Directory | Sort-Object FullName | Select-Object -Last 1
$LlamaLib = Get-ChildItem $Bundle -Recurse -Filter "llama.dll" | Select-Object -First 1 | ForEach-Object DirectoryName
if (-not $LlamaLib) { throw "llama.dll is not in $Bundle" }
$Runtimes = @{ "msvcp140.dll" = "Microsoft.VC143.CRT"; "vcruntime140.dll" = "Microsoft.VC143.CRT";
               "vcruntime140_1.dll" = "Microsoft.VC143.CRT"; "vcomp140.dll" = "Microsoft.VC143.OpenMP" }
foreach ($Dll in $Runtimes.Keys) {
    $From = Join-Path $Redist.FullName (Join-Path $Runtimes[$Dll] $Dll)
    if (-not (Test-Path $From)) { throw "$Dll is not in $($Redist.FullName): install the C++ workload" }
    Copy-Item $From $LlamaLib -Force
}

# 4. The icon was made from resources\icons\engram.svg (packaging/make_icons.py); check the bundle runs.
& "$Bundle\engram.exe" doctor --data-dir "$Root\build\windows\doctor-check"
if ($LASTEXITCODE) { throw "engram doctor failed in the bundle" }

# 5. Signing (optional): both programs, then the installer and its uninstaller through Inno Setup.
$Iscc = (Get-Command iscc.exe -ErrorAction SilentlyContinue).Source
if (-not $Iscc) { $Iscc = "${env:ProgramFiles(x86)}\Inno Setup 6\ISCC.exe" }
$IsccArgs = @("/DAppVersion=$Version")
if ($env:SIGN_CERT_SHA1) {
    $Sign = "signtool sign /sha1 $env:SIGN_CERT_SHA1 /fd sha256 /tr http://timestamp.digicert.com /td sha256"
    & cmd /c "$Sign `"$Bundle\engram.exe`" `"$Bundle\engramw.exe`""
    if ($LASTEXITCODE) { throw "signing the programs failed" }
    $IsccArgs += @("/DSignTool=engramsign", "/Sengramsign=$Sign `$f")
}

# 6. The installer: dist\Engram-<version>-setup.exe, per-user, with a Start-menu entry.
& $Iscc @IsccArgs packaging\windows\engram.iss
if ($LASTEXITCODE) { throw "Inno Setup failed" }
Write-Host "== dist\Engram-$Version-setup.exe"
