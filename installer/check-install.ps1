<#
.SYNOPSIS
    Release-workflow check (Windows runner): install.ps1 and uninstall.ps1, or the setup
    program, really install and remove jlgcli for the user, keeping the PATH REG_EXPAND_SZ.
.EXAMPLE
    powershell -File installer/check-install.ps1 -Zip release/jlgcli-windows-x64.zip
    powershell -File installer/check-install.ps1 -Setup release/jlgcli-setup.exe
#>
[CmdletBinding()]
param(
    [string]$Zip = '',
    [string]$Setup = '',
    [string]$InstallDir = ''
)

Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

$Marker = '%USERPROFILE%\jlgcli-check-marker'  # must stay unexpanded through install and uninstall
$UninstallKey = 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Uninstall\jlgcli'

function Get-RawPath {
    $key = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment')
    try {
        return [pscustomobject]@{
            Value = [string]$key.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
            Kind = $(if ($null -ne $key.GetValue('Path')) { [string]$key.GetValueKind('Path') } else { 'None' })
        }
    } finally {
        $key.Close()
    }
}

function Assert-True([bool]$Condition, [string]$Message) {
    if (-not $Condition) { throw "check failed: $Message" }
    Write-Host "ok: $Message"
}

function Wait-Until([scriptblock]$Condition, [string]$What) {
    for ($i = 0; $i -lt 120; $i++) {
        if (& $Condition) { return }
        Start-Sleep -Milliseconds 500  # the NSIS uninstaller re-launches itself from %TEMP%
    }
    throw "timed out waiting for: $What"
}

# A user PATH with a %VAR% entry, as many machines have.
$key = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment', $true)
$before = [string]$key.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
if (-not (($before -split ';') -contains $Marker)) {
    $key.SetValue('Path', ($(if ($before) { "$before;$Marker" } else { $Marker })), [Microsoft.Win32.RegistryValueKind]::ExpandString)
}
$key.Close()

if ($Zip) {
    if (-not $InstallDir) { $InstallDir = Join-Path $env:RUNNER_TEMP 'jlgcli-ps' }
    $dir = [IO.Path]::GetFullPath($InstallDir)
} else {
    $dir = Join-Path $env:LOCALAPPDATA 'Programs\jlgcli'
}
$path = Get-RawPath
Assert-True (-not (($path.Value -split ';') -contains $dir)) "before the install, the user PATH does not hold $dir"

if ($Zip) {
    $threw = $false
    try {
        & "$PSScriptRoot\install.ps1" -ArchivePath $Zip -Sha256 ('0' * 64) -InstallDir $dir
    } catch {
        $threw = $true
    }
    Assert-True ($threw -and -not (Test-Path -LiteralPath "$dir\jlgcli.exe")) 'a wrong checksum installs nothing'
    & "$PSScriptRoot\install.ps1" -ArchivePath $Zip -InstallDir $dir
} else {
    $Setup = (Resolve-Path -LiteralPath $Setup).Path
    $process = Start-Process -FilePath $Setup -ArgumentList '/S' -Wait -PassThru
    Assert-True ($process.ExitCode -eq 0) "silent setup exits 0 (got $($process.ExitCode))"
}

$exe = Join-Path $dir 'jlgcli.exe'
$version = (& $exe --version) -join ' '
Assert-True ($LASTEXITCODE -eq 0 -and $version -match '^jlgcli \d') "$exe --version prints the version ($version)"
$path = Get-RawPath
Assert-True ($path.Kind -eq 'ExpandString') "the user PATH is still REG_EXPAND_SZ ($($path.Kind))"
Assert-True ((($path.Value -split ';') -contains $dir)) "the user PATH holds $dir"
Assert-True ((($path.Value -split ';') -contains $Marker)) 'a %VAR% entry of the PATH stays unexpanded'
Assert-True (Test-Path -LiteralPath $UninstallKey) 'Apps & Features has a jlgcli entry'

# An upgrade over the install (the same release again): staged, swapped in by renames.
if ($Zip) {
    & "$PSScriptRoot\install.ps1" -ArchivePath $Zip -InstallDir $dir
} else {
    $process = Start-Process -FilePath $Setup -ArgumentList '/S' -Wait -PassThru
    Assert-True ($process.ExitCode -eq 0) "a second silent setup exits 0 (got $($process.ExitCode))"
}
$again = (& $exe --version) -join ' '
Assert-True ($LASTEXITCODE -eq 0 -and $again -eq $version) "after an upgrade $exe still runs ($again)"
$leftovers = @(Get-ChildItem -LiteralPath $dir -Force -Filter '.jlgcli-*')
Assert-True ($leftovers.Count -eq 0) 'an upgrade leaves no staging folder behind'

if ($Zip) {
    & "$dir\uninstall.ps1" -InstallDir $dir -Quiet
} else {
    Start-Process -FilePath "$dir\uninstall.exe" -ArgumentList '/S' -Wait | Out-Null
    Wait-Until { -not (Test-Path -LiteralPath $exe) } 'the uninstaller to remove jlgcli.exe'
}
Wait-Until { -not (Test-Path -LiteralPath $UninstallKey) } 'the Apps & Features entry to go'
$path = Get-RawPath
Assert-True (-not (($path.Value -split ';') -contains $dir)) "the user PATH no longer holds $dir"
Assert-True ((($path.Value -split ';') -contains $Marker)) 'the %VAR% entry survived the uninstall'
Assert-True ($path.Kind -eq 'ExpandString') 'the user PATH is still REG_EXPAND_SZ after the uninstall'
Assert-True (-not (Test-Path -LiteralPath $exe)) 'jlgcli.exe is gone'
Write-Host 'install/uninstall check passed'
