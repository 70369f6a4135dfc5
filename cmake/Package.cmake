# `cmake --build build --target package` (or `cpack -G DEB` in build/) makes a .deb of what
# cmake/Install.cmake installs, under /usr: the binary, the links (in /usr/lib/bpftools/bin,
# beside other packages' tools of the same names), completion and man pages.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME bpftools)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "bpftools maintainers <bpftools@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "BCC's tracing tools on libbpf and CO-RE, in one binary")
set(CPACK_PACKAGE_DESCRIPTION "bpftools rebuilds BCC's tracing tools (softirqs, opensnoop, funcslower,
offcputime, stackcount ...) on libbpf and CO-RE: no compiler or kernel headers at run time.
Run them as 'bpftools TOOL', or put /usr/lib/bpftools/bin (one link per tool) on PATH
to run them by name; the plain names are not installed in /usr/sbin, where other
packages (libbpf-tools) have tools of the same names. Bash, zsh and fish completion and
a man page for each tool.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_STRIP_FILES ON)
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  # CPack names the build machine's architecture otherwise (the toolchain's strip is the target's)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
endif()
set(BT_HTTP_DEPENDS "libmicrohttpd12, libgnutls30, libcrypt1")
if(BPFTOOLS_STATIC)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "")
else()
  # The shared libraries the binary really needs, as dpkg-shlibdeps reads them from it.
  find_program(BT_DPKG_SHLIBDEPS dpkg-shlibdeps)
  if(BT_DPKG_SHLIBDEPS)
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    # The symbols alone ask for libbpf 1.0; the attach layer relies on 1.1's behaviour (an
    # fentry program's target set before load, docs/attach.md), which Debian 12 ships.
    # CPack appends what dpkg-shlibdeps finds to this. The HTTP server's libraries are loaded
    # when the exporter starts one (lib/run/bt_http_libs.h), so dpkg-shlibdeps does not see them.
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libbpf1 (>= 1:1.1), ${BT_HTTP_DEPENDS}")
  else()
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libbpf1 (>= 1:1.1), libelf1, libdw1, zlib1g, liblzma5, libstdc++6, libc6, ${BT_HTTP_DEPENDS}")
  endif()
endif()
# CPack 3.25's Installed-Size and Depends, corrected (cmake/DebFixup.cmake says how).
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/DebFixup.cmake)
include(CPack)
