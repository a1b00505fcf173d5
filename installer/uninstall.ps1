<#
.SYNOPSIS
    Removes a jlgcli installed by install.ps1 (per user, no administrator rights).

.DESCRIPTION
    Deletes jlgcli.exe, _internal and this script from the install folder (the folder
    itself only when nothing else is left in it), removes the folder from the user PATH
    (keeping the registry value REG_EXPAND_SZ), broadcasts the change and removes the
    Apps & Features entry. Your settings in %APPDATA%\jlgcli are kept.

.PARAMETER InstallDir
    The folder to remove (default: this script's folder when it holds jlgcli.exe, else
    %LOCALAPPDATA%\Programs\jlgcli).
.PARAMETER Quiet
    Print nothing but errors.
#>
[CmdletBinding()]
param(
    [string]$InstallDir = '',
    [switch]$Quiet
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$UninstallKey = 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Uninstall\jlgcli'

function Write-Step([string]$Message) {
    if (-not $Quiet) { Write-Host $Message }
}

function Remove-UserPath([string]$Dir) {
    # Raw value in, ExpandString out: %USERPROFILE%-style entries must survive.
    $key = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment', $true)
    try {
        $old = [string]$key.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
        $kept = @($old -split ';' | Where-Object { $_.TrimEnd('\') -ine $Dir.TrimEnd('\') })
        $new = $kept -join ';'
        if ($new -eq $old) { return $false }
        if ($new) {
            $key.SetValue('Path', $new, [Microsoft.Win32.RegistryValueKind]::ExpandString)
        } else {
            $key.DeleteValue('Path', $false)
        }
    } finally {
        $key.Close()
    }
    # Setting a user variable through .NET broadcasts WM_SETTINGCHANGE("Environment").
    [Environment]::SetEnvironmentVariable('JLGCLI_INSTALLER_REFRESH', '1', 'User')
    [Environment]::SetEnvironmentVariable('JLGCLI_INSTALLER_REFRESH', $null, 'User')
    return $true
}

if (-not $InstallDir) {
    if ($PSScriptRoot -and (Test-Path -LiteralPath (Join-Path $PSScriptRoot 'jlgcli.exe'))) {
        $InstallDir = $PSScriptRoot
    } else {
        $InstallDir = Join-Path $env:LOCALAPPDATA 'Programs\jlgcli'
    }
}
$dir = [IO.Path]::GetFullPath($InstallDir)
Set-Location -LiteralPath ([IO.Path]::GetTempPath())  # a folder in use cannot be deleted

# A running jlgcli.exe holds its files: deleting around it would leave a broken half.
$running = @(Get-Process -Name 'jlgcli' -ErrorAction SilentlyContinue |
    Where-Object { $_.Path -and ($_.Path -ieq (Join-Path $dir 'jlgcli.exe')) })
if ($running.Count -gt 0) {
    $ids = ($running | ForEach-Object { $_.Id }) -join ', '
    throw "jlgcli.exe is running from $dir (process $ids): let its runs finish (or stop them), then uninstall again. Nothing was changed."
}
if (Remove-UserPath $dir) { Write-Step "Removed $dir from your user PATH." }
# The program only: never delete what else the user keeps in that folder.
foreach ($name in @('jlgcli.exe', '_internal', 'uninstall.exe', 'uninstall.ps1')) {
    $target = Join-Path $dir $name
    if (Test-Path -LiteralPath $target) { Remove-Item -LiteralPath $target -Recurse -Force }
}
if ((Test-Path -LiteralPath $dir) -and -not (Get-ChildItem -LiteralPath $dir -Force)) {
    Remove-Item -LiteralPath $dir -Force
}
if (Test-Path -LiteralPath $UninstallKey) { Remove-Item -LiteralPath $UninstallKey -Recurse -Force }
Write-Step "jlgcli was removed from $dir (settings in $env:APPDATA\jlgcli are kept)."
