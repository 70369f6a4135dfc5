# -DBPFTOOLS_STATIC=ON links bpftools as one fully static binary (libbpf, libelf, libdw, zlib,
# lzma, bzip2, libstdc++ and glibc inside), to copy onto hosts and into containers that have
# none of them. Otherwise, when the static archives are installed (Debian's -dev packages ship
# them), the same objects are also linked into build/static/bpftools, so the tests exercise the
# static link at the cost of one more link step, not a second build.
option(BPFTOOLS_STATIC "link bpftools as one fully static binary" OFF)
option(BT_STATIC_TWIN "also link build/static/bpftools when the static libraries exist" ON)

# The archives a static link needs, in pkg-config --static order.
set(_bt_static_names ${LIBBPF_STATIC_LIBRARIES} ${LIBDW_STATIC_LIBRARIES} ${LIBELF_STATIC_LIBRARIES}
    ${ZLIB_STATIC_LIBRARIES} ${LIBLZMA_STATIC_LIBRARIES})
set(BT_STATIC_ARCHIVES "")
set(BT_STATIC_MISSING "")
foreach(l IN LISTS _bt_static_names)
  if(l MATCHES "^(pthread|dl|m|rt|c)$")
    continue() # glibc's own, always there as libc.a
  endif()
  find_library(BT_STATIC_LIB_${l} NAMES lib${l}.a)
  if(BT_STATIC_LIB_${l})
    list(APPEND BT_STATIC_ARCHIVES ${BT_STATIC_LIB_${l}})
  else()
    list(APPEND BT_STATIC_MISSING lib${l}.a)
  endif()
endforeach()
list(REMOVE_DUPLICATES BT_STATIC_ARCHIVES)
# symbolize/ demangles through libiberty where it is installed (an archive only, as Debian ships it)
find_path(BT_LIBIBERTY_INCLUDE libiberty/demangle.h)
find_library(BT_LIBIBERTY iberty)
if(BT_LIBIBERTY_INCLUDE AND BT_LIBIBERTY)
  list(APPEND BT_STATIC_ARCHIVES ${BT_LIBIBERTY})
endif()

# Our own archives by path: linking the targets would bring their shared libraries along.
# dlopen always fails in the static binary (lib/base/bt_static.c says why). No HTTP server:
# libmicrohttpd's archive needs gnutls', which needs archives Debian does not ship (libp11-kit,
# libunistring); lib/run/bt_http_static.c stands in and says so (the exporter's --textfile
# mode works without it).
function(bt_link_static target)
  add_dependencies(${target} bt_core bt_symbolize)
  target_link_libraries(${target} PRIVATE $<TARGET_FILE:bt_core> $<TARGET_FILE:bt_symbolize>
                        -Wl,--start-group ${BT_STATIC_ARCHIVES} stdc++ m -Wl,--end-group)
  target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/lib/base/bt_static.c
                 ${PROJECT_SOURCE_DIR}/lib/run/bt_http_static.c)
  target_compile_definitions(${target} PRIVATE _GNU_SOURCE)
  target_include_directories(${target} PRIVATE ${BT_LIB_DIRS})
  target_link_options(${target} PRIVATE -static -Wl,--wrap=dlopen)
endfunction()

if(BPFTOOLS_STATIC)
  if(BT_STATIC_MISSING)
    message(FATAL_ERROR "BPFTOOLS_STATIC: missing ${BT_STATIC_MISSING} (scripts/deps installs them)")
  endif()
  bt_link_static(bpftools)
  set(BT_STATIC_BIN $<TARGET_FILE:bpftools>)
else()
  target_link_libraries(bpftools PRIVATE bt_http bt_core bt_symbolize)
  set(BT_STATIC_BIN "")
  if(BT_STATIC_TWIN AND NOT BT_STATIC_MISSING)
    add_executable(bpftools-static $<TARGET_OBJECTS:bt_main>)
    bt_link_static(bpftools-static)
    # Named bpftools, as dispatch goes by the name it is called by.
    set_target_properties(bpftools-static PROPERTIES OUTPUT_NAME bpftools
                          RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/static)
    set(BT_STATIC_BIN $<TARGET_FILE:bpftools-static>)
  elseif(BT_STATIC_TWIN)
    message(STATUS "no static twin: missing ${BT_STATIC_MISSING}")
  endif()
endif()
