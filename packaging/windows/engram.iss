; Inno Setup 6.3+ script: Engram's Windows installer, dist\Engram-<version>-setup.exe.
; Built by packaging\windows\build_windows.ps1 after PyInstaller made dist\engram\ (not run by the
; project: no Windows machine here). By hand: iscc /DAppVersion=0.1.0 packaging\windows\engram.iss
; Installs per user (no administrator rights, into %LOCALAPPDATA%\Programs\Engram) unless the person
; chooses "for all users" in the dialog; the Start-menu entry opens the window without a console.
; Uninstalling removes the program only: memories stay in %LOCALAPPDATA%\Engram.

#ifndef AppVersion
  #define AppVersion "0.1.0"
#endif
#define Bundle "..\..\dist\engram"

[Setup]
AppId={{6F1C2A4E-8B3D-4E57-9A0C-E1D2B3A4C5F6}
AppName=Engram
AppVersion={#AppVersion}
AppVerName=Engram {#AppVersion}
AppPublisher=Engram
AppPublisherURL=https://github.com/engram/engram
VersionInfoVersion={#AppVersion}
DefaultDirName={autopf}\Engram
DefaultGroupName=Engram
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
MinVersion=10.0
OutputDir=..\..\dist
OutputBaseFilename=Engram-{#AppVersion}-setup
SetupIconFile=..\..\resources\icons\engram.ico
UninstallDisplayIcon={app}\engramw.exe
UninstallDisplayName=Engram
; The models are most of the size and hardly compress: fast compression, not solid.
Compression=lzma2/fast
SolidCompression=no
WizardStyle=modern
#ifdef SignTool
; build_windows.ps1 passes /DSignTool=engram /Sengram="signtool sign ... $f" to sign setup and uninstaller.
SignTool={#SignTool}
SignedUninstaller=yes
#endif

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
; Everything PyInstaller collected, with the MSVC and OpenMP runtimes build_windows.ps1 put beside
; llama.cpp's DLLs (msvcp140, vcruntime140, vcruntime140_1, vcomp140).
Source: "{#Bundle}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\Engram"; Filename: "{app}\engramw.exe"; WorkingDir: "{app}"; Comment: "An offline assistant that remembers"
Name: "{autodesktop}\Engram"; Filename: "{app}\engramw.exe"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\engramw.exe"; Description: "{cm:LaunchProgram,Engram}"; Flags: nowait postinstall skipifsilent

