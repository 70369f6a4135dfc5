# Compile probes/NAME.bpf.c for the BPF target (CO-RE, BTF kept, DWARF stripped) and turn it
# into gen/NAME.skel.h. Header changes rebuild the object through clang's depfile.

find_program(BT_CLANG NAMES clang clang-19 clang-16 clang-15 clang-14 REQUIRED)
find_program(BT_LLVM_STRIP NAMES llvm-strip llvm-strip-19 llvm-strip-16 llvm-strip-15 llvm-strip-14 REQUIRED)
find_program(BT_BPFTOOL NAMES bpftool PATHS /usr/sbin /sbin REQUIRED)

execute_process(COMMAND ${BT_CLANG} --version OUTPUT_VARIABLE _clang_ver)
string(REGEX MATCH "version ([0-9]+)" _m "${_clang_ver}")
if(CMAKE_MATCH_1 LESS 14)
  message(FATAL_ERROR "clang ${CMAKE_MATCH_1} is too old for the BPF programs; 14 or newer is needed")
endif()

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|amd64")
  set(BT_BPF_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64|arm64")
  set(BT_BPF_ARCH arm64)
else()
  message(FATAL_ERROR "no vmlinux.h for ${CMAKE_SYSTEM_PROCESSOR} yet (see scripts/gen-vmlinux)")
endif()
set(BT_VMLINUX_DIR ${PROJECT_SOURCE_DIR}/probes/vmlinux/${BT_BPF_ARCH} CACHE PATH "directory holding vmlinux.h")
if(NOT EXISTS ${BT_VMLINUX_DIR}/vmlinux.h)
  message(FATAL_ERROR "${BT_VMLINUX_DIR}/vmlinux.h is missing; run scripts/gen-vmlinux on a ${BT_BPF_ARCH} machine")
endif()

# The BPF target has no system include path of its own: borrow the host compiler's, after ours,
# so that <bpf/bpf_helpers.h> and the asm headers are found. A cross build asks for the target's
# (/usr/include/aarch64-linux-gnu, not the host's asm headers).
set(_bt_clang_target "")
if(CMAKE_CROSSCOMPILING AND CMAKE_LIBRARY_ARCHITECTURE)
  set(_bt_clang_target --target=${CMAKE_LIBRARY_ARCHITECTURE})
endif()
execute_process(COMMAND ${BT_CLANG} ${_bt_clang_target} -v -E - INPUT_FILE /dev/null
                ERROR_VARIABLE _clang_v OUTPUT_QUIET)
string(REGEX MATCH "#include <...> search starts here:\n(.*)End of search list" _m "${_clang_v}")
string(REGEX MATCHALL "/[^\n ]+" _dirs "${CMAKE_MATCH_1}")
set(BT_CLANG_SYS_INCLUDES "")
foreach(d IN LISTS _dirs)
  list(APPEND BT_CLANG_SYS_INCLUDES -idirafter ${d})
endforeach()

# _bt_bpf_object(OBJ SRC NAME [FLAGS...]): compile SRC for the BPF target into OBJ.
function(_bt_bpf_object obj src name)
  # -MT: the depfile names the rule's output, not the .raw the compiler writes; else CMake
  # files the headers under a target it does not build, and a changed header rebuilds nothing.
  add_custom_command(OUTPUT ${obj}
    COMMAND ${BT_CLANG} -g -O2 -Wall -Werror -Wno-unused-function -target bpf -mcpu=v3
            -D__TARGET_ARCH_${BT_BPF_ARCH} ${ARGN} -I${PROJECT_SOURCE_DIR}/probes -I${BT_VMLINUX_DIR}
            ${BT_CLANG_SYS_INCLUDES} -MD -MF ${obj}.d -MT ${obj} -c ${src} -o ${obj}.raw
    COMMAND ${BT_LLVM_STRIP} -g ${obj}.raw
    # Through the BPF linker: it drops the .rel.BTF and .rel.BTF.ext sections that libbpf
    # skips anyway (a quarter of each object, 0.7 MB of the binary) and dedups the BTF.
    COMMAND ${BT_BPFTOOL} gen object ${obj} ${obj}.raw
    DEPENDS ${src} DEPFILE ${obj}.d
    COMMENT "BPF ${name}" VERBATIM)
endfunction()

# bt_bpf_skeleton(NAME [SOURCE]): SOURCE defaults to probes/NAME.bpf.c.
function(bt_bpf_skeleton name)
  set(src ${PROJECT_SOURCE_DIR}/probes/${name}.bpf.c)
  if(ARGC GREATER 1)
    set(src ${ARGV1})
  endif()
  set(obj ${BT_GEN_DIR}/${name}.bpf.o)
  set(skel ${BT_GEN_DIR}/${name}.skel.h)
  _bt_bpf_object(${obj} ${src} ${name}.bpf.c)
  add_custom_command(OUTPUT ${skel}
    COMMAND sh -c "\"$1\" gen skeleton \"$2\" name \"$3\" > \"$4.tmp\" && mv \"$4.tmp\" \"$4\""
            sh ${BT_BPFTOOL} ${obj} ${name}_bpf ${skel}
    DEPENDS ${obj}
    COMMENT "skeleton ${name}.skel.h" VERBATIM)
endfunction()

# bt_bpf_skeleton_nokfuncs(NAME): probes/NAME.bpf.c built again with BT_NO_KFUNCS, for kernels
# without BTF (lib/attach/bt_skel.h, BT_SKEL_OPEN_WHOLE_BTF_NOKFUNCS): gen/NAME_nokfuncs.skel.h,
# of which only the bytes are used, opened into NAME's skeleton. So the build fails unless the
# two skeletons are the same but for their names and bytes: the same programs, maps and data.
function(bt_bpf_skeleton_nokfuncs name)
  set(src ${PROJECT_SOURCE_DIR}/probes/${name}.bpf.c)
  set(obj ${BT_GEN_DIR}/${name}_nokfuncs.bpf.o)
  set(skel ${BT_GEN_DIR}/${name}_nokfuncs.skel.h)
  _bt_bpf_object(${obj} ${src} "${name}.bpf.c without kfuncs" -DBT_NO_KFUNCS)
  add_custom_command(OUTPUT ${skel}
    COMMAND sh -c "\"$1\" gen skeleton \"$2\" name \"$3\" > \"$4.tmp\""
            sh ${BT_BPFTOOL} ${obj} ${name}_nokfuncs_bpf ${skel}
    COMMAND sh ${PROJECT_SOURCE_DIR}/cmake/twin-skeleton.sh ${BT_GEN_DIR}/${name}.skel.h ${name}
            ${skel}.tmp ${name}_nokfuncs
    COMMAND mv ${skel}.tmp ${skel}
    DEPENDS ${obj} ${BT_GEN_DIR}/${name}.skel.h ${PROJECT_SOURCE_DIR}/cmake/twin-skeleton.sh
    COMMENT "skeleton ${name}_nokfuncs.skel.h" VERBATIM)
endfunction()
