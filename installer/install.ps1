<#
.SYNOPSIS
    Installs jlgcli for the current user (no administrator rights, no Python needed).

.DESCRIPTION
    Downloads the jlgcli release zip for Windows x64, verifies its SHA-256 against the
    published .sha256 file, unpacks it into %LOCALAPPDATA%\Programs\jlgcli, adds that
    folder to the user PATH (keeping the registry value REG_EXPAND_SZ), tells running
    programs that the environment changed, and registers uninstall.ps1 in Apps & Features.

    An upgrade never leaves a half-replaced program: it refuses while a jlgcli.exe of the
    install folder runs (its files are in use), and otherwise unpacks into a fresh folder
    and swaps the program in by renames, putting the old one back if any step fails.

    One-liner (Windows PowerShell 5.1 or PowerShell 7):
        powershell -ExecutionPolicy ByPass -c "irm https://github.com/OWNER/REPO/releases/latest/download/install.ps1 | iex"

    Settings also come from the environment, for the one-liner:
    JLGCLI_VERSION, JLGCLI_INSTALL_DIR, JLGCLI_REPO, JLGCLI_NO_MODIFY_PATH=1.

.PARAMETER Version
    Release tag to install (v1.2.3), or "latest".
.PARAMETER InstallDir
    Where to install (default %LOCALAPPDATA%\Programs\jlgcli).
.PARAMETER ArchivePath
    Install from a local jlgcli-windows-x64.zip instead of downloading it; its checksum is
    read from -Sha256 or from the .sha256 file next to it.
.PARAMETER Sha256
    Expected SHA-256 of -ArchivePath.
.PARAMETER NoModifyPath
    Leave the user PATH alone.
#>
[CmdletBinding()]
param(
    [string]$Version = '',
    [string]$InstallDir = '',
    [string]$Repo = '',
    [string]$ArchivePath = '',
    [string]$Sha256 = '',
    [switch]$NoModifyPath
)

# The release workflow stamps these two lines with the repository and tag of the release.
$DefaultRepo = 'OWNER/REPO'
$DefaultVersion = 'latest'

$AssetName = 'jlgcli-windows-x64.zip'
# What an install replaces in the folder; anything else there stays.
$ProgramItems = @('_internal', 'jlgcli.exe', 'uninstall.ps1')
$UninstallKey = 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Uninstall\jlgcli'

function Get-Setting([string]$Value, [string]$EnvName, [string]$Default) {
    if ($Value) { return $Value }
    $fromEnv = [Environment]::GetEnvironmentVariable($EnvName)
    if ($fromEnv) { return $fromEnv }
    return $Default
}

function Get-ReleaseUrl([string]$Repository, [string]$Tag, [string]$Name) {
    if ($Tag -eq 'latest') {
        return "https://github.com/$Repository/releases/latest/download/$Name"
    }
    if (-not $Tag.StartsWith('v')) { $Tag = "v$Tag" }
    return "https://github.com/$Repository/releases/download/$Tag/$Name"
}

function Read-Checksum([string]$Text) {
    # "<64 hex>  <name>" (sha256sum format) or just the hex
    $match = [regex]::Match($Text, '\b[0-9a-fA-F]{64}\b')
    if (-not $match.Success) { throw "no SHA-256 found in the checksum file" }
    return $match.Value.ToLowerInvariant()
}

function Assert-Sha256([string]$Path, [string]$Expected) {
    $actual = (Get-FileHash -LiteralPath $Path -Algorithm SHA256).Hash.ToLowerInvariant()
    if ($actual -ne $Expected.ToLowerInvariant()) {
        throw "checksum mismatch for ${Path}: expected $Expected, got $actual. Nothing was installed."
    }
}

function Test-PathEntry([string]$PathValue, [string]$Dir) {
    foreach ($entry in ($PathValue -split ';')) {
        if ($entry.TrimEnd('\') -ieq $Dir.TrimEnd('\')) { return $true }
    }
    return $false
}

function Send-EnvironmentChange {
    # Setting any user variable through .NET broadcasts WM_SETTINGCHANGE("Environment"),
    # so Explorer and new terminals see the new PATH without signing out.
    [Environment]::SetEnvironmentVariable('JLGCLI_INSTALLER_REFRESH', '1', 'User')
    [Environment]::SetEnvironmentVariable('JLGCLI_INSTALLER_REFRESH', $null, 'User')
}

function Add-UserPath([string]$Dir) {
    # Read the raw value: expanding it and writing it back (or writing REG_SZ) would break
    # entries such as %USERPROFILE%\bin. Never [Environment]::SetEnvironmentVariable('Path', ...).
    $key = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment', $true)
    try {
        $old = [string]$key.GetValue('Path', '', [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)
        if (Test-PathEntry $old $Dir) { return $false }
        if ($old -and -not $old.EndsWith(';')) { $new = "$old;$Dir" } elseif ($old) { $new = "$old$Dir" } else { $new = $Dir }
        $key.SetValue('Path', $new, [Microsoft.Win32.RegistryValueKind]::ExpandString)
    } finally {
        $key.Close()
    }
    Send-EnvironmentChange
    return $true
}

function Register-Uninstaller([string]$Dir, [string]$DisplayVersion) {
    if (-not (Test-Path -LiteralPath $UninstallKey)) { New-Item -Path $UninstallKey -Force | Out-Null }
    $uninstall = "powershell.exe -NoProfile -ExecutionPolicy Bypass -File `"$Dir\uninstall.ps1`""
    $values = @{
        DisplayName = 'jlgcli'; DisplayVersion = $DisplayVersion; Publisher = 'jlgcli'
        InstallLocation = $Dir; DisplayIcon = "$Dir\jlgcli.exe"
        UninstallString = $uninstall; QuietUninstallString = "$uninstall -Quiet"
    }
    foreach ($name in $values.Keys) {
        New-ItemProperty -Path $UninstallKey -Name $name -Value $values[$name] -PropertyType String -Force | Out-Null
    }
    foreach ($name in @('NoModify', 'NoRepair')) {
        New-ItemProperty -Path $UninstallKey -Name $name -Value 1 -PropertyType DWord -Force | Out-Null
    }
}

function Get-RunningCopy([string]$Dir) {
    # The jlgcli.exe processes started from $Dir: their program files are in use.
    $exe = Join-Path $Dir 'jlgcli.exe'
    return @(Get-Process -Name 'jlgcli' -ErrorAction SilentlyContinue |
        Where-Object { $_.Path -and ($_.Path -ieq $exe) })
}

function Assert-NotRunning([string]$Dir) {
    $running = Get-RunningCopy $Dir
    if ($running.Count -gt 0) {
        $ids = ($running | ForEach-Object { $_.Id }) -join ', '
        throw "jlgcli.exe is running from $Dir (process $ids): its files are in use and cannot be replaced. Let its runs finish (or stop them), then run the installer again. Nothing was changed."
    }
}

function Remove-Leftover([string]$Dir) {
    # Folders of an earlier install that could not be deleted then (files were in use).
    Get-ChildItem -LiteralPath $Dir -Force -Directory -ErrorAction SilentlyContinue |
        Where-Object { $_.Name -like '.jlgcli-old-*' -or $_.Name -like '.jlgcli-new-*' } |
        ForEach-Object { Remove-Item -LiteralPath $_.FullName -Recurse -Force -ErrorAction SilentlyContinue }
}

function Install-ProgramFile([string]$Source, [string]$Dir) {
    # Stage, then swap by renames: the new program is unpacked into a fresh folder, the old
    # one is moved aside and the new one moved in. A rename either happens or not, so no step
    # leaves a half-deleted _internal (every new jlgcli would fail to start); a failed step
    # moves everything back as it was.
    $id = [guid]::NewGuid().ToString('N')
    $staged = Join-Path $Dir ".jlgcli-new-$id"
    $aside = Join-Path $Dir ".jlgcli-old-$id"
    Copy-Item -LiteralPath $Source -Destination $staged -Recurse
    New-Item -ItemType Directory -Path $aside | Out-Null
    $movedAside = @()
    $movedIn = @()
    try {
        foreach ($name in $ProgramItems) {
            $target = Join-Path $Dir $name
            if (Test-Path -LiteralPath $target) {
                Move-Item -LiteralPath $target -Destination (Join-Path $aside $name)
                $movedAside += $name
            }
        }
        foreach ($item in @(Get-ChildItem -LiteralPath $staged -Force)) {
            Move-Item -LiteralPath $item.FullName -Destination (Join-Path $Dir $item.Name)
            $movedIn += $item.Name
        }
    } catch {
        $failure = $_
        foreach ($name in $movedIn) {
            Move-Item -LiteralPath (Join-Path $Dir $name) -Destination (Join-Path $staged $name) -ErrorAction SilentlyContinue
        }
        foreach ($name in $movedAside) {
            Move-Item -LiteralPath (Join-Path $aside $name) -Destination (Join-Path $Dir $name) -ErrorAction SilentlyContinue
        }
        Remove-Item -LiteralPath $staged -Recurse -Force -ErrorAction SilentlyContinue
        Remove-Item -LiteralPath $aside -Recurse -Force -ErrorAction SilentlyContinue
        throw "could not replace the program in ${Dir}: $failure. The installed version was kept as it was."
    }
    Remove-Item -LiteralPath $staged -Recurse -Force -ErrorAction SilentlyContinue
    Remove-Item -LiteralPath $aside -Recurse -Force -ErrorAction SilentlyContinue
    if (Test-Path -LiteralPath $aside) {
        Write-Host "The old program files stay in $aside until the next install (still in use)."
    }
}

function Install-Jlgcli {
    # Set here, not at the top: under `irm | iex` the top level is the user's own session.
    Set-StrictMode -Version Latest
    $ErrorActionPreference = 'Stop'
    $ProgressPreference = 'SilentlyContinue'  # the progress bar slows Invoke-WebRequest tenfold

    $repository = Get-Setting $Repo 'JLGCLI_REPO' $DefaultRepo
    $tag = Get-Setting $Version 'JLGCLI_VERSION' $DefaultVersion
    $defaultDir = Join-Path $env:LOCALAPPDATA 'Programs\jlgcli'
    $dir = [IO.Path]::GetFullPath((Get-Setting $InstallDir 'JLGCLI_INSTALL_DIR' $defaultDir))
    $keepPath = $NoModifyPath -or ($env:JLGCLI_NO_MODIFY_PATH -eq '1')

    if (-not [Environment]::Is64BitOperatingSystem) {
        throw 'jlgcli is published for 64-bit Windows only (x64; ARM64 runs it emulated).'
    }
    Assert-NotRunning $dir  # before anything is downloaded or changed
    # Windows PowerShell 5.1 on an old .NET may not offer TLS 1.2 by default.
    [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12

    $work = Join-Path ([IO.Path]::GetTempPath()) ("jlgcli-install-" + [guid]::NewGuid().ToString('N'))
    New-Item -ItemType Directory -Path $work | Out-Null
    try {
        if ($ArchivePath) {
            $zip = (Resolve-Path -LiteralPath $ArchivePath).Path
            if ($Sha256) {
                $expected = $Sha256
            } elseif (Test-Path -LiteralPath "$zip.sha256") {
                $expected = Read-Checksum (Get-Content -LiteralPath "$zip.sha256" -Raw)
            } else {
                throw "no checksum for ${zip}: pass -Sha256 or put $AssetName.sha256 next to it"
            }
        } else {
            if ($repository -eq 'OWNER/REPO') {
                throw "this install.ps1 is not a release's copy: pass -Repo OWNER/NAME (or set JLGCLI_REPO), or use -ArchivePath ZIP"
            }
            $url = Get-ReleaseUrl $repository $tag $AssetName
            $zip = Join-Path $work $AssetName
            Write-Host "Downloading $url"
            Invoke-WebRequest -Uri $url -OutFile $zip -UseBasicParsing
            Invoke-WebRequest -Uri "$url.sha256" -OutFile "$zip.sha256" -UseBasicParsing
            $expected = Read-Checksum (Get-Content -LiteralPath "$zip.sha256" -Raw)
        }
        Assert-Sha256 $zip $expected
        Write-Host "Checksum OK (SHA-256 $expected)"

        $unpacked = Join-Path $work 'unpacked'
        Expand-Archive -LiteralPath $zip -DestinationPath $unpacked -Force
        $source = Join-Path $unpacked 'jlgcli'
        if (-not (Test-Path -LiteralPath (Join-Path $source 'jlgcli.exe'))) {
            throw "$AssetName does not hold jlgcli\jlgcli.exe"
        }

        New-Item -ItemType Directory -Path $dir -Force | Out-Null
        Remove-Leftover $dir
        # Replace the program only ($ProgramItems); anything else in the folder stays.
        Install-ProgramFile $source $dir
    } finally {
        Remove-Item -LiteralPath $work -Recurse -Force -ErrorAction SilentlyContinue
    }

    $exe = Join-Path $dir 'jlgcli.exe'
    $installed = (& $exe --version) -join ' '
    if ($LASTEXITCODE -ne 0) { throw "$exe --version failed (exit $LASTEXITCODE)" }
    $displayVersion = ($installed -replace '^jlgcli\s+', '').Trim()
    Register-Uninstaller $dir $displayVersion
    Write-Host "Installed $installed into $dir"

    if ($keepPath) {
        Write-Host "PATH left unchanged (-NoModifyPath): run $exe, or add $dir to your PATH."
    } elseif (Add-UserPath $dir) {
        Write-Host "Added $dir to your user PATH."
    } else {
        Write-Host "$dir is already on your user PATH."
    }
    if (-not $keepPath -and -not (Test-PathEntry $env:Path $dir)) {
        $env:Path = "$dir;$env:Path"  # this session too, so jlgcli works right away
    }
    if ($env:GITHUB_PATH) { Add-Content -LiteralPath $env:GITHUB_PATH -Value $dir }

    Write-Host ''
    Write-Host 'Next steps:'
    Write-Host '  1. Open a new terminal (other terminals keep their old PATH).'
    Write-Host '  2. jlgcli --version'
    Write-Host '  3. jlgcli doctor          (which agent CLIs are installed and logged in)'
    Write-Host "Uninstall: Apps & Features > jlgcli, or powershell -ExecutionPolicy Bypass -File `"$dir\uninstall.ps1`""
}

# No `exit` anywhere: under `irm ... | iex` it would close the user's PowerShell window.
Install-Jlgcli
