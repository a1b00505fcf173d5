; jlgcli setup program (NSIS 3, builds on Linux with Debian's nsis). Per-user: no admin,
; installs into %LOCALAPPDATA%\Programs\jlgcli, adds that folder to the *user* PATH
; (kept REG_EXPAND_SZ) and registers an uninstaller in Apps & Features (HKCU).
; Built by installer/release.py:
;   makensis -DVERSION=1.2.3 -DVERSION_QUAD=1.2.3.0 -DSOURCE_DIR=dist/jlgcli -DOUTFILE=jlgcli-setup.exe installer/jlgcli.nsi
; Silent install: jlgcli-setup.exe /S [/D=C:\path]   Silent uninstall: uninstall.exe /S

Unicode true
ManifestDPIAware true
SetCompressor /SOLID lzma
RequestExecutionLevel user

!ifndef VERSION
  !error "pass -DVERSION=x.y.z"
!endif
!ifndef VERSION_QUAD
  !error "pass -DVERSION_QUAD=x.y.z.0"
!endif
!ifndef SOURCE_DIR
  !error "pass -DSOURCE_DIR=<the onedir build, holding jlgcli.exe and _internal>"
!endif
!ifndef OUTFILE
  !define OUTFILE "jlgcli-setup.exe"
!endif

!define APP "jlgcli"
!define UNINSTALL_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APP}"
!define ENV_KEY "Environment"
; NSIS strings hold NSIS_MAX_STRLEN characters; a longer user PATH would be cut, so it is
; left alone (and the user told) rather than rewritten.
!define PATH_ROOM 8

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "FileFunc.nsh"
!include "StrFunc.nsh"
!include "WinMessages.nsh"
${StrStr}
${UnStrRep}

Name "${APP} ${VERSION}"
OutFile "${OUTFILE}"
InstallDir "$LOCALAPPDATA\Programs\${APP}"
InstallDirRegKey HKCU "${UNINSTALL_KEY}" "InstallLocation"
ShowInstDetails show
ShowUninstDetails show
BrandingText "${APP} ${VERSION}"

VIProductVersion "${VERSION_QUAD}"
VIAddVersionKey "ProductName" "${APP}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${APP} setup"
VIAddVersionKey "LegalCopyright" "MIT License"

!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_TEXT "${APP} is installed in $INSTDIR and on your PATH.$\r$\n$\r$\nOpen a NEW terminal, then run:$\r$\n  jlgcli --version$\r$\n  jlgcli doctor"
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Var PathValue
Var PathSize

; Sets $PathSize to the user PATH's size in characters, -1 when there is none, -2 on error.
!macro ReadPathSize
  System::Call 'advapi32::RegGetValueW(p 0x80000001, w "${ENV_KEY}", w "Path", i 0x10000006, p 0, p 0, *i 0 r1) i .r0'
  ${If} $0 = 0
    IntOp $PathSize $1 / 2
  ${ElseIf} $0 = 2
    StrCpy $PathSize -1
  ${Else}
    StrCpy $PathSize -2
  ${EndIf}
!macroend

!macro BroadcastEnvironment
  SendMessage ${HWND_BROADCAST} ${WM_SETTINGCHANGE} 0 "STR:Environment" /TIMEOUT=5000
!macroend

Function AddToUserPath
  !insertmacro ReadPathSize
  ${If} $PathSize = -1
    WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$INSTDIR"
    !insertmacro BroadcastEnvironment
    DetailPrint "Added $INSTDIR to the user PATH"
    Return
  ${EndIf}
  StrLen $2 "$INSTDIR"
  IntOp $2 $2 + $PathSize
  IntOp $2 $2 + ${PATH_ROOM}
  ${If} $PathSize = -2
  ${OrIf} $2 >= ${NSIS_MAX_STRLEN}
    DetailPrint "Your user PATH is too long to edit safely: add $INSTDIR to it yourself."
    MessageBox MB_OK|MB_ICONINFORMATION "Your user PATH is too long for this installer to edit safely.$\r$\nAdd this folder to it yourself:$\r$\n$INSTDIR" /SD IDOK
    Return
  ${EndIf}
  ClearErrors
  ReadRegStr $PathValue HKCU "${ENV_KEY}" "Path"  ; raw: %VARS% stay unexpanded
  ${If} ${Errors}
    DetailPrint "Could not read the user PATH: add $INSTDIR to it yourself."
    Return
  ${EndIf}
  ${StrStr} $3 ";$PathValue;" ";$INSTDIR;"
  ${If} $3 != ""
    DetailPrint "$INSTDIR is already on the user PATH"
    Return
  ${EndIf}
  StrCpy $3 $PathValue 1 -1
  ${If} $PathValue == ""
    StrCpy $PathValue "$INSTDIR"
  ${ElseIf} $3 == ";"
    StrCpy $PathValue "$PathValue$INSTDIR"
  ${Else}
    StrCpy $PathValue "$PathValue;$INSTDIR"
  ${EndIf}
  WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$PathValue"
  !insertmacro BroadcastEnvironment
  DetailPrint "Added $INSTDIR to the user PATH"
FunctionEnd

Function un.RemoveFromUserPath
  !insertmacro ReadPathSize
  ${If} $PathSize < 0
    Return
  ${EndIf}
  ${If} $PathSize >= ${NSIS_MAX_STRLEN}
    DetailPrint "Your user PATH is too long to edit safely: remove $INSTDIR from it yourself."
    Return
  ${EndIf}
  ClearErrors
  ReadRegStr $PathValue HKCU "${ENV_KEY}" "Path"
  ${If} ${Errors}
    Return
  ${EndIf}
  ${UnStrRep} $3 ";$PathValue;" ";$INSTDIR;" ";"
  StrCpy $3 $3 "" 1   ; drop the ";" added in front
  StrCpy $3 $3 -1     ; and the one added behind
  ${If} $3 == $PathValue
    Return
  ${EndIf}
  ${If} $3 == ""
    DeleteRegValue HKCU "${ENV_KEY}" "Path"
  ${Else}
    WriteRegExpandStr HKCU "${ENV_KEY}" "Path" "$3"
  ${EndIf}
  !insertmacro BroadcastEnvironment
  DetailPrint "Removed $INSTDIR from the user PATH"
FunctionEnd

; A running jlgcli.exe cannot be written to (its image is mapped): opening it for writing
; fails while any copy runs, and its _internal DLLs are loaded. Deleting _internal then left
; it half-deleted and every new jlgcli failed to start, so an upgrade refuses instead.
Function RefuseWhileRunning
  ${IfNot} ${FileExists} "$INSTDIR\jlgcli.exe"
    Return
  ${EndIf}
  ClearErrors
  FileOpen $0 "$INSTDIR\jlgcli.exe" a
  ${If} ${Errors}
    DetailPrint "jlgcli.exe is running from $INSTDIR: nothing was changed"
    MessageBox MB_OK|MB_ICONSTOP "jlgcli.exe is running from $INSTDIR: its files are in use and cannot be replaced.$\r$\nLet its runs finish (or stop them), then run setup again. Nothing was changed." /SD IDOK
    SetErrorLevel 5
    Quit
  ${EndIf}
  FileClose $0
FunctionEnd

; Puts back what was moved aside into $INSTDIR\.jlgcli-old (only what was moved is there).
Function RestoreOld
  ${If} ${FileExists} "$INSTDIR\.jlgcli-old\_internal\*.*"
    Rename "$INSTDIR\.jlgcli-old\_internal" "$INSTDIR\_internal"
  ${EndIf}
  ${If} ${FileExists} "$INSTDIR\.jlgcli-old\jlgcli.exe"
    Rename "$INSTDIR\.jlgcli-old\jlgcli.exe" "$INSTDIR\jlgcli.exe"
  ${EndIf}
FunctionEnd

Function NotReplaced
  RMDir /r "$INSTDIR\.jlgcli-new"
  RMDir /r "$INSTDIR\.jlgcli-old"
  DetailPrint "The program could not be replaced: the installed version was kept"
  MessageBox MB_OK|MB_ICONSTOP "The program in $INSTDIR could not be replaced (a file is in use).$\r$\nThe installed version was kept as it was." /SD IDOK
  SetErrorLevel 5
  Quit
FunctionEnd

Section "jlgcli" SecMain
  SectionIn RO
  SetShellVarContext current
  Call RefuseWhileRunning
  ; An upgrade replaces the program, never anything else the folder may hold. The new one is
  ; unpacked into a fresh folder, the old one moved aside, the new one moved in: renames, each
  ; of which happens or not, so nothing is ever half-deleted; a failed one puts the old back.
  RMDir /r "$INSTDIR\.jlgcli-new"  ; what a failed earlier setup left
  RMDir /r "$INSTDIR\.jlgcli-old"
  SetOutPath "$INSTDIR\.jlgcli-new"
  File /r "${SOURCE_DIR}/*"
  SetOutPath "$INSTDIR"
  CreateDirectory "$INSTDIR\.jlgcli-old"
  ClearErrors
  ${If} ${FileExists} "$INSTDIR\_internal\*.*"
    Rename "$INSTDIR\_internal" "$INSTDIR\.jlgcli-old\_internal"
    ${If} ${Errors}  ; (the test clears the flag)
      Call NotReplaced
    ${EndIf}
  ${EndIf}
  ${If} ${FileExists} "$INSTDIR\jlgcli.exe"
    Rename "$INSTDIR\jlgcli.exe" "$INSTDIR\.jlgcli-old\jlgcli.exe"
    ${If} ${Errors}
      Call RestoreOld
      Call NotReplaced
    ${EndIf}
  ${EndIf}
  Rename "$INSTDIR\.jlgcli-new\_internal" "$INSTDIR\_internal"
  ${If} ${Errors}
    Call RestoreOld
    Call NotReplaced
  ${EndIf}
  Rename "$INSTDIR\.jlgcli-new\jlgcli.exe" "$INSTDIR\jlgcli.exe"
  ${If} ${Errors}
    Rename "$INSTDIR\_internal" "$INSTDIR\.jlgcli-new\_internal"
    Call RestoreOld
    Call NotReplaced
  ${EndIf}
  CopyFiles /SILENT "$INSTDIR\.jlgcli-new\*.*" "$INSTDIR"  ; anything else the build holds
  RMDir /r "$INSTDIR\.jlgcli-new"
  RMDir /r "$INSTDIR\.jlgcli-old"
  WriteUninstaller "$INSTDIR\uninstall.exe"

  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayName" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "Publisher" "${APP}"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "DisplayIcon" "$INSTDIR\jlgcli.exe"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINSTALL_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKCU "${UNINSTALL_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  WriteRegDWORD HKCU "${UNINSTALL_KEY}" "EstimatedSize" "$0"

  Call AddToUserPath
SectionEnd

Section "Uninstall"
  SetShellVarContext current
  Call un.RemoveFromUserPath
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\jlgcli.exe"
  Delete "$INSTDIR\uninstall.ps1"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR"  ; only when empty: never delete what the user put there
  DeleteRegKey HKCU "${UNINSTALL_KEY}"
SectionEnd
