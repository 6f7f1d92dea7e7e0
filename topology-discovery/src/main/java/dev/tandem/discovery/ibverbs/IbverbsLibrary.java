package dev.tandem.discovery.ibverbs;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;

/**
 * The exported libibverbs symbols the agent binds. {@code ibv_query_port} is bound as the exported
 * compatibility symbol; only the first bytes of {@code struct ibv_port_attr} (state at offset 0,
 * link_layer at offset 46, stable in the verbs ABI) are read.
 */
interface IbverbsLibrary extends Library {

  Pointer ibv_get_device_list(IntByReference numDevices);

  void ibv_free_device_list(Pointer list);

  String ibv_get_device_name(Pointer device);

  Pointer ibv_open_device(Pointer device);

  int ibv_close_device(Pointer context);

  int ibv_query_port(Pointer context, byte portNum, Pointer portAttr);
}
