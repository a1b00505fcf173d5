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

Section "jlgcli" SecMain
  SectionIn RO
  SetShellVarContext current
  SetOutPath "$INSTDIR"
  ; An upgrade replaces the program, never anything else the folder may hold.
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\jlgcli.exe"
  File /r "${SOURCE_DIR}/*"
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
